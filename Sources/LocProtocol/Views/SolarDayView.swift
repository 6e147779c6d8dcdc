import LocCore

/// One local day's solar events, like `locctl sun --json`: `date`, each event's UTC time (to
/// the second) or null, and `polar` saying why for each null.
public struct SolarDayView: WireCodable {
  /// One event of the day.
  public struct Entry: Hashable, Sendable {
    /// The event (its name is the member's key).
    public var event: SolarEvent
    /// When, or why not.
    public var occurrence: SolarDay.Occurrence

    /// An entry.
    public init(event: SolarEvent, occurrence: SolarDay.Occurrence) {
      self.event = event
      self.occurrence = occurrence
    }
  }

  /// The local date.
  public var date: CivilDate
  /// The events in the order of a day.
  public var entries: [Entry]

  /// A view.
  public init(date: CivilDate, entries: [Entry]) {
    self.date = date
    self.entries = entries
  }

  /// The wire form of `day`.
  public init(_ day: SolarDaySummary) {
    date = day.date
    entries = day.events.map { e in
      switch e.occurrence {
      case .at(let t): return Entry(event: e.event, occurrence: .at(WireFormat.truncate(t, 0)))
      case .never: return Entry(event: e.event, occurrence: e.occurrence)
      }
    }
  }

  /// When `event` happens this day, or why not; nil when the day does not list it.
  public subscript(event: SolarEvent) -> SolarDay.Occurrence? {
    entries.first { $0.event == event }?.occurrence
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    date = try o.date("date")
    let polar = try o.object("polar")
    entries = []
    for m in o.members.members where m.key != "date" && m.key != "polar" {
      // Events a newer locd lists and this build cannot name are skipped.
      guard let event = SolarEvent(name: m.key) else { continue }
      if m.value.isNull {
        entries.append(Entry(event: event, occurrence: .never(try polar.word(m.key))))
      } else {
        entries.append(Entry(event: event, occurrence: .at(try o.instant(m.key))))
      }
    }
  }

  public var json: JSON {
    var o: JSONObject = ["date": .string(date.description)]
    var polar = JSONObject()
    for entry in entries {
      let key = entry.event.description
      switch entry.occurrence {
      case .at(let t): o[key] = WireFormat.time(t, 0)
      case .never(let why):
        o[key] = .null
        polar[key] = .string(why.rawValue)
      }
    }
    o["polar"] = .object(polar)
    return .object(o)
  }
}
