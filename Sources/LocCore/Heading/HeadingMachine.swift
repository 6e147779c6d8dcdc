/// A compass heading as the engine hands it on: degrees clockwise from magnetic north
/// (iio-sensor-proxy's CompassHeading), the true heading when a declination model gives one
/// (none is shipped: always nil, docs/PROTOCOL.md "Heading"), when it was measured and the
/// source it came from.
public struct HeadingReading: Sendable, Hashable {
  /// Degrees clockwise from magnetic north, 0 up to (not including) 360.
  public var magneticHeading: Double
  /// Degrees clockwise from true north; nil without a declination model.
  public var trueHeading: Double?
  /// When the compass reported it.
  public var time: Instant
  /// The source's URI (`compass:`).
  public var source: String

  /// A reading.
  public init(magneticHeading: Double, trueHeading: Double? = nil, time: Instant, source: String) {
    self.magneticHeading = magneticHeading
    self.trueHeading = trueHeading
    self.time = time
    self.source = source
  }

  /// Whether `degrees` is a heading: finite, 0 up to 360 (iio-sensor-proxy says -1 before
  /// its first reading).
  public static func isHeading(_ degrees: Double) -> Bool {
    degrees.isFinite && degrees >= 0 && degrees < 360
  }

  /// The angle between two headings, 0 to 180 degrees, the short way round.
  public static func change(_ a: Double, _ b: Double) -> Double {
    let d = abs(a - b).truncatingRemainder(dividingBy: 360)
    return min(d, 360 - d)
  }
}

/// Who wants the compass's heading and who gets it (decision 0054): each session that
/// started heading updates with its filter (degrees; 0: every reading) and the reading it
/// was last given; the sessions that may have it now (the engine says: plain sessions
/// always, an app session only while its app is authorized and in use); whether the compass
/// is claimed, which it is exactly while one of those wants heading; and the latest reading
/// while it is.
struct HeadingMachine: EngineMachine {
  /// What happens to the machine.
  enum Input: Sendable, Hashable {
    /// `session` starts (or changes) heading updates with `filter` degrees.
    case start(SessionID, filter: Double)
    /// `session` stops them (or went away).
    case stop(SessionID)
    /// The sessions that may have heading now (a subset of those wanting it or not: the
    /// rest are ignored).
    case eligible(Set<SessionID>)
    /// The compass measured a heading.
    case measured(HeadingReading)
  }

  /// What the engine is asked to do.
  enum Output: Sendable, Hashable {
    /// Push `reading` to `session`.
    case heading(SessionID, HeadingReading)
    /// Claim the compass (true) or release it (false).
    case claim(Bool)
  }

  /// One session's heading updates.
  private struct Watch: Sendable, Hashable {
    var filter: Double
    /// The magnetic heading it was last given.
    var last: Double?
  }

  private var watches: [SessionID: Watch] = [:]
  private var eligible: Set<SessionID> = []
  private var claimed = false
  private var latest: HeadingReading?
  private var counters = HeadingCounters()

  /// The sessions that started heading updates, in order.
  var sessions: [SessionID] { watches.keys.sorted() }
  /// Whether nobody wants heading (the engine's per-event check costs nothing then).
  var isEmpty: Bool { watches.isEmpty && !claimed }
  /// Whether the compass is claimed.
  var isClaimed: Bool { claimed }
  /// What happened, counted, with where the claim stands (status).
  var report: HeadingReport {
    HeadingReport(
      sessions: watches.count, eligible: watches.keys.filter(eligible.contains).count, claimed: claimed,
      counters: counters)
  }

  mutating func handle(_ input: Input, at now: Instant) -> [Output] {
    var out: [Output] = []
    switch input {
    case .start(let id, let filter):
      // A new filter starts from what the session was last given.
      watches[id] = Watch(filter: max(0, filter), last: watches[id]?.last)
      counters.starts += 1
    case .stop(let id):
      if watches.removeValue(forKey: id) != nil { counters.stops += 1 }
      eligible.remove(id)
    case .eligible(let now):
      let wanting = now.filter { watches[$0] != nil }
      let arrived = wanting.subtracting(eligible)
      eligible = wanting
      // A session that may have heading again (or for the first time) hears the latest
      // reading if it passes its filter.
      if let latest {
        for id in arrived.sorted() { offer(latest, to: id, into: &out) }
      }
    case .measured(let reading):
      counters.measured += 1
      guard HeadingReading.isHeading(reading.magneticHeading) else {
        counters.invalid += 1
        return out
      }
      guard claimed else {
        // A reading that arrives after the release (or before the claim was made).
        counters.unclaimed += 1
        return out
      }
      latest = reading
      for id in eligible.sorted() { offer(reading, to: id, into: &out) }
    }
    let want = !eligible.isEmpty
    if want != claimed {
      claimed = want
      if want { counters.claims += 1 } else { counters.releases += 1 }
      if !want { latest = nil }
      out.append(.claim(want))
    }
    return out
  }

  /// Gives `reading` to `id` when it changed at least the session's filter from what it was
  /// last given (any reading with a filter of 0).
  private mutating func offer(_ reading: HeadingReading, to id: SessionID, into out: inout [Output]) {
    guard var w = watches[id] else { return }
    if let last = w.last, w.filter > 0, HeadingReading.change(last, reading.magneticHeading) < w.filter {
      counters.filtered += 1
      return
    }
    w.last = reading.magneticHeading
    watches[id] = w
    counters.delivered += 1
    out.append(.heading(id, reading))
  }
}

/// What the heading machine counted.
public struct HeadingCounters: Sendable, Hashable {
  /// `start-heading` and `stop-heading` requests taken (a session closing stops too).
  public var starts = 0
  public var stops = 0
  /// Readings from the compass; those that came while it was not claimed.
  public var measured = 0
  public var unclaimed = 0
  /// Heading events sent, and those a session's filter held back.
  public var delivered = 0
  public var filtered = 0
  /// Times the compass was claimed and released.
  public var claims = 0
  public var releases = 0
  /// Readings that were no heading (not finite, outside 0 up to 360).
  public var invalid = 0
  public init() {}
}

/// Where heading stands, for status.
public struct HeadingReport: Sendable, Hashable {
  /// Sessions that started heading updates, and those of them that may have heading now.
  public var sessions: Int
  public var eligible: Int
  /// Whether the compass is claimed.
  public var claimed: Bool
  public var counters: HeadingCounters
  /// The counters by name, in this order: `starts`, `stops`, `measured`, `invalid`,
  /// `unclaimed`, `delivered`, `filtered`, `claims`, `releases`.
  public var counterList: [Counter] {
    let c = counters
    return [
      Counter("starts", c.starts), Counter("stops", c.stops), Counter("measured", c.measured),
      Counter("invalid", c.invalid), Counter("unclaimed", c.unclaimed), Counter("delivered", c.delivered),
      Counter("filtered", c.filtered), Counter("claims", c.claims), Counter("releases", c.releases),
    ]
  }
  /// A report.
  public init(sessions: Int, eligible: Int, claimed: Bool, counters: HeadingCounters) {
    self.sessions = sessions
    self.eligible = eligible
    self.claimed = claimed
    self.counters = counters
  }
}
