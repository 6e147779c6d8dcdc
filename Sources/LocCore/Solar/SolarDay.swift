/// The solar events of one local day at one place: for each requested event, when it happens or
/// why it does not.
///
/// It is a collection of (event, occurrence) pairs in the order the events were asked for.
public struct SolarDay: Sendable, RandomAccessCollection {
  /// The local calendar date.
  public let date: CivilDate
  /// The local day, [first instant of `date`, first instant of the next date); 23 or 25 hours
  /// long on daylight-saving days, empty for a date the zone skipped.
  public let interval: Range<Instant>
  private var entries: [Entry]

  /// What happened to one event in this day.
  public enum Occurrence: Hashable, Sendable {
    /// It happened at this instant (the first time, if it happened twice).
    case at(Instant)
    /// It did not happen in this local day.
    case never(Absence)

    /// The instant, if it happened.
    public var instant: Instant? {
      if case .at(let instant) = self { return instant }
      return nil
    }
  }

  /// Why an event did not happen in a local day.
  public enum Absence: String, Hashable, Sendable {
    /// The Sun stayed above the event's elevation all day (midnight sun for sunset).
    case polarDay = "day"
    /// The Sun stayed below it all day (polar night for sunrise).
    case polarNight = "night"
    /// The Sun crossed the elevation that day, but only the other way: the event fell just
    /// before or after this local day (high latitudes in summer, short daylight-saving days).
    case otherDay = "other-day"
  }

  struct Entry: Sendable {
    var event: SolarEvent
    var first: Instant?
    var more: [Instant]
    var absence: Absence
  }

  init(date: CivilDate, interval: Range<Instant>, entries: [Entry]) {
    self.date = date
    self.interval = interval
    self.entries = entries
  }

  public var startIndex: Int { 0 }
  public var endIndex: Int { entries.count }

  /// The event at `index` and what happened to it.
  public subscript(index: Int) -> (event: SolarEvent, occurrence: Occurrence) {
    let entry = entries[index]
    return (entry.event, entry.first.map { .at($0) } ?? .never(entry.absence))
  }

  /// The occurrences after the first of the event at `index` (empty unless it happened twice):
  /// for writers that walk the day by index and must not allocate per event.
  public func laterOccurrences(at index: Int) -> [Instant] {
    entries[index].more
  }

  /// The events this day was computed for, in the order asked.
  public var events: [SolarEvent] { entries.map(\.event) }

  /// When `event` happened, or why not; `nil` if the day was not computed for it.
  public subscript(event: SolarEvent) -> Occurrence? {
    guard let entry = entries.first(where: { $0.event == event }) else { return nil }
    if let first = entry.first { return .at(first) }
    return .never(entry.absence)
  }

  /// Every time `event` happened this day, in order: usually one; two when a 25-hour day
  /// holds the same twilight twice; none when it did not happen.
  public func occurrences(of event: SolarEvent) -> [Instant] {
    guard let entry = entries.first(where: { $0.event == event }), let first = entry.first else { return [] }
    return [first] + entry.more
  }
}
