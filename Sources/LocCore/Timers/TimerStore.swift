/// The contents of `timers.json` in the state directory (mode 0600): the timers added over the
/// socket, what locd remembers about every timer (last occurrence handled, last firing), and
/// the last instant locd saw. Never a coordinate. Format: docs/decisions/0007-timer-store.md.
public struct TimerStore: Sendable, Hashable {
  /// The format version written; readers reject other versions.
  public static let formatVersion = 1
  /// The last instant locd was running: occurrences after it and before the next start were missed.
  public var checkpoint: Instant?
  /// Timers added at run time (event and unit actions only).
  public var runtime: [TimerDefinition]
  /// Per-timer memory, by name.
  public var records: [String: TimerRecord]

  /// A store.
  public init(
    checkpoint: Instant? = nil, runtime: [TimerDefinition] = [], records: [String: TimerRecord] = [:]
  ) {
    self.checkpoint = checkpoint
    self.runtime = runtime
    self.records = records
  }

  /// Why a store could not be read.
  public struct DecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var description: String
    /// An error.
    public init(description: String) { self.description = description }
  }

  /// The file's bytes: one JSON object and a newline.
  public func encoded() -> [UInt8] {
    var timers: [JSON] = []
    for t in runtime {
      var o: JSONObject = ["name": .string(t.name), "rule": .string(t.rule.description)]
      switch t.action {
      case .event: o["action"] = .string("event")
      case .startUnit(let unit):
        o["action"] = .string("unit")
        o["unit"] = .string(unit)
      case .command:
        continue  // never stored: commands come only from root-owned files
      }
      o["missed"] = .string(t.missed.rawValue)
      timers.append(.object(o))
    }
    var records = JSONObject()
    for (name, r) in self.records.sorted(by: { $0.key < $1.key }) {
      var o: JSONObject = ["since": .string(r.since.iso8601(fractionDigits: 3))]
      o["handled"] = .optional(r.handledDate?.description)
      o["lastFired"] = .optional(r.lastFiredAt?.iso8601(fractionDigits: 3))
      records[name] = .object(o)
    }
    let o: JSONObject = [
      "version": .int(TimerStore.formatVersion),
      "checkpoint": .optional(checkpoint?.iso8601(fractionDigits: 3)),
      "timers": .array(timers),
      "records": .object(records),
    ]
    return Array((JSON.object(o).serialized + "\n").utf8)
  }

  /// Reads the file's bytes; anything unexpected is an error, never a guess.
  public init(decoding bytes: [UInt8]) throws(DecodeError) {
    let json: JSON
    // `records` has one member per timer, and MaxTimers= allows up to 100000 (locd.conf(5)).
    do { json = try JSON.parse(bytes, maxDepth: 6, maxMembers: 100_000) } catch {
      throw DecodeError(description: "not valid JSON (\(error))")
    }
    guard json["version"]?.number == Double(TimerStore.formatVersion) else {
      throw DecodeError(description: "missing or unsupported format version")
    }
    func instant(_ v: JSON?, _ what: String) throws(DecodeError) -> Instant? {
      guard let v, !v.isNull else { return nil }
      guard let s = v.string, let t = Instant(iso8601: s) else {
        throw DecodeError(description: "\(what): bad time")
      }
      return t
    }
    checkpoint = try instant(json["checkpoint"], "checkpoint")
    runtime = []
    for item in json["timers"]?.array ?? [] {
      guard let name = item["name"]?.string, TimerDefinition.isValidName(name) else {
        throw DecodeError(description: "timers: a timer without a valid name")
      }
      let rule: TimerRule
      do { rule = try TimerRule(parsing: item["rule"]?.string ?? "") } catch {
        throw DecodeError(description: "timer \(name): \(error)")
      }
      let action: TimerAction
      switch item["action"]?.string {
      case "event"?: action = .event
      case "unit"?:
        guard let unit = item["unit"]?.string, TimerAction.isValidUnitName(unit) else {
          throw DecodeError(description: "timer \(name): bad unit")
        }
        action = .startUnit(unit)
      default: throw DecodeError(description: "timer \(name): unknown action")
      }
      guard let missed = MissedEventPolicy(rawValue: item["missed"]?.string ?? "") else {
        throw DecodeError(description: "timer \(name): unknown missed-event policy")
      }
      runtime.append(
        TimerDefinition(name: name, rule: rule, action: action, missed: missed, origin: .runtime))
    }
    records = [:]
    for (name, r) in json["records"]?.object?.members ?? [] {
      guard TimerDefinition.isValidName(name), let since = try instant(r["since"], "record \(name)") else {
        throw DecodeError(description: "records: bad record")
      }
      var handled: CivilDate? = nil
      if let h = r["handled"], !h.isNull {
        guard let text = h.string, let d = CivilDate(iso: text) else {
          throw DecodeError(description: "record \(name): bad date")
        }
        handled = d
      }
      records[name] = TimerRecord(
        handledDate: handled, lastFiredAt: try instant(r["lastFired"], "record \(name)"), since: since)
    }
  }
}
