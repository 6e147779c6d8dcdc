/// Visit detection (arrivals and departures at places where the device stays) as a pure
/// state machine: fixes in, `VisitEvent`s out. It keeps the current place (a running mean
/// of its fixes) and at most one forming place; no fix and no past visit is stored.
///
/// - A fix is in a place when it lies within `max(minimumRadius, accuracy)` of the place's
///   mean; out of it when beyond that radius plus `max(accuracy, marginFloor)`; between the
///   two it changes nothing.
/// - Arrival: the current place has held the device for `minimumStay`, first fix to last;
///   the visit's arrival is the first fix.
/// - Departure: fixes have been out of the place for `leaveConfirmation`, at least two of
///   them, with none in it since; the visit's departure is the last fix in it. Fixes out of
///   the place gather into the forming place, which becomes current then, keeping its first
///   fix as a possible arrival. Strays (multipath) are forgiven: out of the current place
///   and back before the departure is confirmed, or one fix out of a forming place.
/// docs/REGIONS.md, "Visits", gives the numbers and the cadence acquisition must keep.
public struct VisitMonitor: Sendable {
  /// The rule's numbers.
  public struct Configuration: Hashable, Sendable {
    /// A place is at least this wide in radius (100 m: a house and its garden, an office
    /// floor, with a consumer receiver's noise).
    public var minimumRadius: Meters = 100
    /// A stay this long is a visit.
    public var minimumStay: Duration = .seconds(5 * 60)
    /// The margin to leave a place is the fix's accuracy, but never below this.
    public var marginFloor: Meters = 25
    /// Out of the place this long (and at least two fixes) before the departure counts.
    public var leaveConfirmation: Duration = .seconds(60)
    /// While visits are monitored, a fix at least this often (`acquisitionHint`).
    public var cadence: Duration = .seconds(60)
    /// The defaults.
    public init() {}
  }

  /// What the monitor has counted. Counters only grow.
  public struct Counters: Hashable, Sendable {
    /// Fixes evaluated.
    public var fixes = 0
    /// Fixes ignored: accuracy negative, NaN or infinite.
    public var ignoredFixes = 0
    /// Arrivals reported.
    public var arrivals = 0
    /// Departures reported.
    public var departures = 0
    /// Stray fixes forgiven (out of a place, followed by one in it).
    public var strays = 0
    /// Inputs whose instant was before an earlier input's.
    public var clockWentBack = 0
    /// All zero.
    public init() {}
  }

  /// A place being watched: the running sums of its fixes.
  struct Place: Sendable {
    var sum: EarthPoint
    var count: Double
    var accuracySquares: Double
    var first: Instant
    var lastIn: Instant
    /// Consecutive fixes out of it (the forming place forgives one).
    var misses = 0

    init(_ p: EarthPoint, _ accuracy: Double, at now: Instant) {
      sum = p
      count = 1
      accuracySquares = accuracy * accuracy
      first = now
      lastIn = now
    }

    var centre: Coordinate { sum.coordinate ?? Coordinate(lat: 0, lon: 0)! }
    var accuracy: Meters { Meters((accuracySquares / count).squareRoot()) }

    mutating func add(_ p: EarthPoint, _ accuracy: Double, at now: Instant) {
      sum = EarthPoint(x: sum.x + p.x, y: sum.y + p.y, z: sum.z + p.z)
      count += 1
      accuracySquares += accuracy * accuracy
      lastIn = now
      misses = 0
    }
  }

  /// The numbers.
  public let configuration: Configuration
  /// Counters.
  public private(set) var counters = Counters()
  /// The visit in progress (arrived, not departed), if any.
  public private(set) var current: Visit?
  /// When the last fix came.
  public private(set) var lastFixAt: Instant?
  var place: Place?
  var forming: Place?
  var outSince: Instant?
  var outCount = 0

  /// A monitor with no place yet.
  public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

  /// Handles a fix at `now` (its time), with its horizontal accuracy.
  public mutating func handle(fix: Coordinate, accuracy: Meters, at now: Instant) -> [VisitEvent] {
    guard accuracy.value.isFinite, accuracy.value >= 0 else {
      counters.ignoredFixes += 1
      return []
    }
    noteTime(now)
    counters.fixes += 1
    let p = EarthPoint(fix)
    let a = accuracy.value
    guard var here = place else {
      place = Place(p, a, at: now)
      return []
    }
    var events: [VisitEvent] = []
    switch side(of: fix, a, here) {
    case .inside:
      if outSince != nil { counters.strays += 1 }
      here.add(p, a, at: now)
      place = here
      forming = nil
      outSince = nil
      outCount = 0
      if current == nil, now.duration(since: here.first) >= configuration.minimumStay {
        let visit = Visit(coordinate: here.centre, accuracy: here.accuracy, arrival: here.first)
        current = visit
        counters.arrivals += 1
        events.append(.arrived(visit))
      }
    case .between:
      // Neither in nor out: a departure being confirmed starts over.
      outSince = nil
      outCount = 0
    case .outside:
      gather(p, fix, a, at: now)
      outSince = outSince ?? now
      outCount += 1
      if outCount >= 2, now.duration(since: outSince!) >= configuration.leaveConfirmation {
        if var visit = current {
          visit.departure = here.lastIn
          counters.departures += 1
          events.append(.departed(visit))
          current = nil
        }
        place = forming
        forming = nil
        outSince = nil
        outCount = 0
      }
    }
    return events
  }

  /// The next fix visits need: one cadence after the last (now when there was none).
  public func acquisitionHint(at now: Instant) -> FixHint {
    guard let last = lastFixAt else { return FixHint(due: now, reason: .noPosition) }
    let due = last.adding(configuration.cadence)
    return FixHint(due: max(due, now), reason: .visitCadence(configuration.cadence))
  }

  /// Forgets the current visit and places (the last app stopped monitoring visits).
  public mutating func reset() {
    current = nil
    place = nil
    forming = nil
    outSince = nil
    outCount = 0
  }

  enum Side { case inside, between, outside }

  private func side(of fix: Coordinate, _ accuracy: Double, _ place: Place) -> Side {
    let d = fix.distance(to: place.centre).value
    let radius = max(configuration.minimumRadius.value, accuracy)
    if d <= radius { return .inside }
    if d > radius + max(accuracy, configuration.marginFloor.value) { return .outside }
    return .between
  }

  /// Adds a fix out of the current place to the forming place, or starts one there: a
  /// forming place forgives one fix out of it, the second in a row replaces it.
  private mutating func gather(_ p: EarthPoint, _ fix: Coordinate, _ a: Double, at now: Instant) {
    guard var next = forming else {
      forming = Place(p, a, at: now)
      return
    }
    if side(of: fix, a, next) == .inside {
      next.add(p, a, at: now)
      forming = next
    } else if next.misses == 0 && next.count > 1 {
      next.misses = 1
      forming = next
    } else {
      forming = Place(p, a, at: now)
    }
  }

  private mutating func noteTime(_ now: Instant) {
    if let last = lastFixAt, now < last {
      counters.clockWentBack += 1
      for keyPath in [\VisitMonitor.place, \VisitMonitor.forming] {
        if var p = self[keyPath: keyPath] {
          p.first = min(p.first, now)
          p.lastIn = min(p.lastIn, now)
          self[keyPath: keyPath] = p
        }
      }
      if let s = outSince, s > now { outSince = now }
    }
    lastFixAt = now
  }
}
