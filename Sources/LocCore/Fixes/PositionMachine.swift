/// Where the position comes from: the sources and their states, fix acceptance, the latest
/// accepted fix, the last known position (and what the state file holds of it), the manual
/// location, and the resolver's tier as last reported.
struct PositionMachine: EngineMachine {
  /// What acceptance made of a fix.
  enum Verdict: Sendable, Hashable {
    /// It moves the position.
    case accepted(Position)
    /// Dropped, and why; `consistent` is its coordinate when it agrees with the current fix
    /// and is only less accurate (it still shows the position is stable).
    case rejected(FixAcceptance.Rejection, consistent: Coordinate?)
  }

  /// A change of the regeneration point: a significant move or a change of zone.
  struct Significance: Sendable, Hashable {
    /// The point before (nil: the first position since start).
    var from: Position?
    /// The point now.
    var to: Position
    /// How far apart they are (nil without a point before).
    var distance: Meters?
    /// The move, when the distance made it significant (nil: only the zone changed).
    var move: SignificancePolicy.Move?
  }

  private var sources: [SourceID: SourceSnapshot] = [:]
  /// Which fixes may move the position.
  private var acceptance = FixAcceptance()
  /// Fixes dropped, by reason.
  private var rejections: [FixAcceptance.Rejection: Int] = [:]
  /// Per source: fixes being dropped, and its time against the clock.
  private(set) var reports: [SourceID: SourceFixReport] = [:]
  /// The latest accepted fix and the position made from it.
  private(set) var latest: (fix: Fix, position: Position)?
  /// Last known position from the state file (or last persisted).
  private var lastKnown: Position?
  /// What the state file holds now for the last known position: the regeneration point.
  private var persisted: Position?
  /// The manual location.
  private var manual: Position?
  /// What the static file says, and why it says nothing usable if so.
  private var staticRead = StaticFileState()
  /// The geolocation service's latest answer (Wi-Fi or IP).
  private var network: Position?
  /// A problem with the state file found at start.
  private(set) var stateProblem: String?
  /// The tier last reported.
  private var tier: PositionTier = .none
  /// Each source's latest sky (memory only) and what was last sent of it.
  private var skyBoard = SkyBoard()
  /// Values from outside that lay out of bounds since start.
  private var outOfBounds = OutOfBoundsReport()

  /// Notes `value` from `source` at `now`; returns whether it is the first of its kind (source,
  /// field, action) among those kept.
  mutating func noteOutOfBounds(
    _ value: OutOfBounds, from source: String, _ provenance: PositionProvenance, at now: Instant
  ) -> Bool {
    outOfBounds.note(value, from: source, provenance, at: now)
    return outOfBounds.recent.last?.count == 1
  }

  /// The values out of bounds since start (nil while there were none).
  var outOfBoundsReport: OutOfBoundsReport? { outOfBounds.isEmpty ? nil : outOfBounds }

  /// Keeps `sky` as the latest of `source`; returns it when a `sky` event is due
  /// (`SkyBoard`).
  mutating func sky(_ sky: Sky, from source: SourceID, at now: Instant) -> SourceSky? {
    skyBoard.note(sky, from: source, uri: uri(of: source), at: now)
  }

  /// Every source's latest sky, by source.
  var skies: [SourceSky] { skyBoard.skies }

  /// The latest sky of any source.
  var newestSky: SourceSky? { skyBoard.newest }

  /// The connected receivers (sources giving fixes) without a sky since `since`.
  func receivers(withoutSkySince since: Instant) -> Set<SourceID> {
    Set(
      sources.values.filter { s in
        s.givesFixes && s.state == .connected && (skyBoard.time(of: s.id).map { $0 < since } ?? true)
      }.map(\.id))
  }

  /// What the state file should hold now.
  var storedState: StoredState { StoredState(lastKnown: persisted, manual: manual) }

  /// The last known position at start (for the zone to start from).
  var lastKnownCoordinate: Coordinate? { lastKnown?.coordinate }

  /// The daemon started with this state (or a problem reading it).
  mutating func started(_ state: StoredState?, problem: String?) {
    lastKnown = state?.lastKnown
    persisted = state?.lastKnown
    manual = state?.manual
    manual?.origin = .manual
    stateProblem = problem
  }

  /// A source changed at `now`: keeps it with its fault dated (`SourceFault.continuing`) and
  /// returns it when what subscribers are told of (`SourceSnapshot.notice`: the state's name,
  /// the fault) changed, nil for a repeat (another attempt, new counters).
  mutating func sourceUpdated(_ snapshot: SourceSnapshot, restarted: Bool, at now: Instant) -> SourceSnapshot?
  {
    let old = sources[snapshot.id]
    var kept = snapshot
    kept.fault = SourceFault.continuing(
      old?.fault, reported: snapshot.fault, lastError: snapshot.lastError, at: now)
    sources[snapshot.id] = kept
    if restarted { acceptance.restarted(snapshot.id) }
    return old?.notice == kept.notice ? nil : kept
  }

  /// Judges a fix from `source` received at `now`; a source stays live (outranking less
  /// trusted ones) for `liveFor` after its last fix.
  mutating func fix(_ fix: Fix, from source: SourceID, at now: Instant, liveFor: Duration) -> Verdict {
    acceptance.settings.liveFor = liveFor
    let trust = sources[source]?.trust ?? .network  // the engine always knows its sources
    let newestBefore = acceptance.newestTime(of: source)
    let currentBefore = latest
    let verdict = acceptance.judge(fix, from: source, trust: trust, at: now)
    var report = reports[source] ?? SourceFixReport()
    if fix.coordinate != nil {
      report.noteClock(fixTime: fix.time, at: now, tolerance: acceptance.settings.futureTolerance)
    }
    if case .reject(let why) = verdict {
      rejections[why, default: 0] += 1
      report.note(
        why, at: now,
        detail: explain(why, fix, source, trust, now, newest: newestBefore, current: currentBefore?.position))
      reports[source] = report
      return .rejected(why, consistent: why == .insideAccuracy ? fix.coordinate : nil)
    }
    report.note(nil, at: now, detail: "")
    reports[source] = report
    // Acceptance never passes a fix without a coordinate (`noFix`).
    guard let coordinate = fix.coordinate else { return .rejected(.noFix, consistent: nil) }
    let uri = uri(of: source)
    let position = Position(
      coordinate: coordinate, accuracy: fix.horizontalAccuracy, altitude: fix.altitudeMSL, time: fix.time,
      receivedAt: now, source: uri)
    latest = (fix, position)
    return .accepted(position)
  }

  /// Whether `position` moves the regeneration point (a significant move under `threshold`,
  /// or `zoneChanged`); if so it becomes the last known position and the point.
  mutating func significance(of position: Position, zoneChanged: Bool, threshold: Meters) -> Significance? {
    let move = SignificancePolicy(threshold: threshold).evaluate(from: persisted, to: position)
    guard move != nil || zoneChanged else { return nil }
    let from = persisted
    lastKnown = position
    persisted = position
    return Significance(
      from: from, to: position, distance: from.map { $0.coordinate.distance(to: position.coordinate) },
      move: move)
  }

  /// The manual location, if one is set.
  var manualLocation: Position? { manual }

  /// Sets (or with nil clears) the manual location.
  mutating func setManual(_ position: Position?) { manual = position }

  /// The static file was read (or found gone): returns whether its position changed.
  /// The same place read again keeps the position it gave (and its age).
  mutating func setStatic(_ read: StaticFileState) -> Bool {
    var read = read
    let old = staticRead.position
    if let new = read.position, let old, new.coordinate == old.coordinate, new.accuracy == old.accuracy,
      new.altitude == old.altitude
    {
      read.position = old
    }
    staticRead = read
    return read.position != old
  }

  /// The geolocation service answered with `position`.
  mutating func setNetwork(_ position: Position) { network = position }

  /// The latest answer of the geolocation service, if any.
  var networkPosition: Position? { network }

  /// What the static file gave when it was last read.
  var staticFile: StaticFileState { staticRead }

  /// The daemon stops: the state to write if the latest position is not on disk yet.
  mutating func stopping() -> StoredState? {
    guard let position = latest?.position, position != persisted else { return nil }
    lastKnown = position
    persisted = position
    return storedState
  }

  /// The resolver's answer at `now`. `receiversIdle` says acquisition let the receivers sleep;
  /// `noSource` why no source is in effect, if that is so; `advice` what the engine knows of
  /// the fallback tiers. Both are worked out only when needed (no source; no position): a
  /// position is resolved at least twice an event.
  func resolve(
    at now: Instant, freshness: PositionResolver.Freshness, receiversIdle: Bool,
    noSource: @autoclosure () -> String? = nil, advice: @autoclosure () -> FallbackAdvice? = nil
  ) -> ResolvedPosition {
    var resolved = PositionResolver.resolve(
      PositionCandidates(
        fix: latest?.position, network: network, staticFile: staticRead.position, manual: manual,
        lastKnown: lastKnown),
      freshness: freshness, now: now,
      sourceProblem: sources.isEmpty ? noSource() : sourceProblem(receiversIdle: receiversIdle))
    if resolved.tier == .none, var advice = advice() {
      let live = sortedSources.filter { $0.givesFixes && ($0.state == .connected || $0.state == .idle) }
      advice.receiverConnected = !live.isEmpty
      advice.receiverDropping = live.contains { reports[$0.id]?.dropping != nil }
      if let path = staticRead.path { advice.staticFile = path }
      advice.staticProblem = staticRead.problem
      resolved.remedy = advice.remedy
    }
    return resolved
  }

  /// The tier before, when `resolved`'s differs from the one last reported.
  mutating func tierChange(_ resolved: ResolvedPosition) -> PositionTier? {
    guard resolved.tier != tier else { return nil }
    defer { tier = resolved.tier }
    return tier
  }

  /// Why nothing can deliver a fix ("replay:x: finished; ..."), or nil when some source may.
  var undeliverable: String? {
    let all = sortedSources.filter(\.givesFixes)
    if all.isEmpty && !sources.isEmpty { return "no fix source (beacon or compass sources only)" }
    guard !all.isEmpty, all.allSatisfy({ $0.state == .failed || $0.state == .finished }) else { return nil }
    return all.map { s in "\(s.uri): \(s.state.name)" + (s.lastError.map { " (\($0))" } ?? "") }
      .joined(separator: "; ")
  }

  /// The sources in id order.
  var sortedSources: [SourceSnapshot] { sources.values.sorted(by: { $0.id < $1.id }) }

  /// Fixes dropped, by reason, in a stable order.
  var rejectionCounters: [Counter] {
    FixAcceptance.Rejection.allCases.map { Counter($0.rawValue, rejections[$0] ?? 0) }
  }

  /// Why fixes are not coming, from the sources' states, or why those that come are dropped.
  private func sourceProblem(receiversIdle: Bool) -> String? {
    let snapshots = sortedSources.filter(\.givesFixes)
    if snapshots.isEmpty && !sources.isEmpty {
      return "no fix source is configured (beacon or compass sources only)"
    }
    if snapshots.contains(where: { $0.state == .connected || $0.state == .idle }) {
      if receiversIdle { return "receivers idle between refreshes" }
      let dropping = snapshots.compactMap { s in reports[s.id]?.dropping.map { (s.uri, $0) } }
      guard !dropping.isEmpty else { return nil }
      return dropping.map { uri, d in
        "\(uri): \(d.count) fix\(d.count == 1 ? "" : "es") dropped as \(d.reason.rawValue) (\(d.detail))"
      }.joined(separator: "; ")
    }
    guard let first = snapshots.first else { return nil }
    if case .waiting = first.state, first.heldForSubscriber {
      return "the replay waits for the first subscriber (a watch, a locate or a wait starts it)"
    }
    if case .waiting = first.state {
      return "no gpsd on this machine yet (locd connects to \(first.uri) when it starts)"
    }
    let detail = first.lastError.map { " (\($0))" } ?? ""
    return "source \(first.uri): \(first.state.name)\(detail)"
  }
}

// Why a fix was dropped, in words for `locctl status` (never a coordinate). Kept in this
// file so it reads the sources and acceptance, which are private.
extension PositionMachine {
  /// The URI of `source`, or "source N" before its first snapshot.
  func uri(of source: SourceID) -> String { sources[source]?.uri ?? "source \(source.index)" }

  /// Explains rejection `why` of `fix` from `source` at `now`, given the source's newest fix
  /// time and the current position before the verdict.
  func explain(
    _ why: FixAcceptance.Rejection, _ fix: Fix, _ source: SourceID, _ trust: SourceTrust, _ now: Instant,
    newest: Instant?, current: Position?
  ) -> String {
    switch why {
    case .noFix:
      return fix.quality == .simulated ? "a simulator's fix" : "no position in it (no fix)"
    case .future:
      return "dated \(SourceFixReport.span(fix.time.duration(since: now))) ahead of this machine's clock"
    case .outranked:
      let other = acceptance.outranking(trust, other: source, at: now).map { uri(of: $0) } ?? "another source"
      let rank = acceptance.outranking(trust, other: source, at: now).flatMap { sources[$0]?.trust }
      return "\(other) (trust \(rank?.description ?? "higher")) is live; this source's trust is \(trust)"
    case .old:
      if let newest, fix.time == newest { return "the same time as the source's fix before" }
      if let newest, fix.time < newest {
        return "its times went back \(SourceFixReport.span(newest.duration(since: fix.time))) "
          + "(a recording that repeats?)"
      }
      if let current {
        return "older than the current fix from \(current.source) "
          + "by \(SourceFixReport.span(current.time.duration(since: fix.time)))"
      }
      return "older than the fixes before"
    case .implausibleJump:
      guard let current, let c = fix.coordinate else { return "too far from the current position" }
      let seconds = max(1, min(fix.time, now).seconds(since: min(current.time, current.receivedAt)))
      return "\(TimeFormat.distance(c.distance(to: current.coordinate))) from the current position "
        + "in \(TimeFormat.duration(.milliseconds(Int64(seconds * 1000))))"
    case .insideAccuracy:
      return "less accurate than the current fix and inside its circle"
    }
  }
}
