/// The geolocation service's side of the engine (`[Network]`): whether a lookup may go out
/// now, the answers kept in memory by the set of networks seen, the minimum interval, the
/// capped backoff after failures, and the counters `status` shows (never the networks).
struct NetworkLookupMachine: EngineMachine {
  /// What to do about a wanted lookup.
  enum Decision: Sendable, Hashable {
    /// Send it (the shell answers with `geolocateAnswered`).
    case send(GeolocateQuery)
    /// The same networks were answered within `CacheFor=`: this, without asking.
    case cached(GeolocateAnswer.Located, PositionProvenance)
    /// Asked and not found within `CacheFor=`: nothing to ask again.
    case cachedNotFound
    /// Not now: a lookup is under way, or not before this instant.
    case later(Instant?)
    /// Network positioning is off (or this kind of lookup is).
    case off
  }

  /// An answer kept: the place, or nil for a 404, and when it came.
  private struct Cached: Sendable, Hashable {
    var located: GeolocateAnswer.Located?
    var at: Instant
  }

  /// At most this many sets of networks are remembered (the oldest goes first).
  static let cacheLimit = 64

  private var settings: NetworkSettings
  private var cache: [String: Cached] = [:]
  private var inFlight: GeolocateQuery?
  private var lastAsked: Instant?
  private var lastAnswered: Instant?
  private var failures = 0
  private var retryAt: Instant?
  private var lastProblem: String?
  private var scanProblem: String?
  private var counts = NetworkReport.Counts()
  /// The Wi-Fi scan: asked for and not yet answered (since when), and the query made of the
  /// last one that came back, with when.
  private var scanning: Instant?
  private var scanned: (query: GeolocateQuery, at: Instant)?
  /// The cells each modem source is registered with now (kept only while the switch is on).
  private var cells: [SourceID: [CellTower]] = [:]
  /// Following the Wi-Fi scene (decision 0066): what the shell was last told (nil: nothing
  /// yet), since when it follows, when the devices last published a scene (or a scan of
  /// locd's own ended), the scene of the lookup the network position stands for, and whether
  /// the scene seen since moved away from it.
  private var follow = SceneFollow()

  /// What following the scene keeps.
  private struct SceneFollow: Sendable, Hashable {
    var told: Bool?
    var since: Instant?
    var lastScan: Instant?
    var lastPublished: Instant?
    var lookedUp: WifiScene?
    var seen: WifiScene?
    var moved = false
  }

  init(settings: NetworkSettings) { self.settings = settings }

  /// New settings (a reload): a new service forgets what the old one answered.
  mutating func configure(_ new: NetworkSettings) {
    if new.url != settings.url || !new.enabled {
      if !new.enabled { cells = [:] }
      cache = [:]
      failures = 0
      retryAt = nil
    }
    settings = new
  }

  /// Whether a Wi-Fi scan is due at `now` (network positioning on, none under way, none
  /// within `MinInterval=`); if so it counts as asked for.
  mutating func scanDue(at now: Instant) -> Bool {
    guard settings.enabled else { return false }
    if let since = scanning, now < since.adding(settings.timeout) { return false }
    if let last = scanned?.at, now < last.adding(settings.minInterval) { return false }
    scanning = now
    follow.lastScan = now
    counts.scans += 1
    return true
  }

  /// The earliest a scan may be asked for (`scanDue`): after the one under way gives up,
  /// `MinInterval=` after the last one; nil: now.
  var nextScanAllowed: Instant? {
    [scanning?.adding(settings.timeout), scanned?.at.adding(settings.minInterval)].compactMap { $0 }.max()
  }

  /// A scan came back with `accessPoints` (none when it could not be made; `unread` more
  /// published than were read): what may be sent of it is the query of the next lookups.
  mutating func scanned(
    _ accessPoints: [WifiAccessPoint], unread: Int = 0, problem: String? = nil, at now: Instant
  ) {
    scanning = nil
    scanProblem = problem
    counts.unreadAccessPoints += unread
    see(accessPoints, at: now)
  }

  /// The Wi-Fi devices published a scene locd did not ask for (access points came or went,
  /// the connected one changed, a scan another program asked for ended), read while
  /// following: the query of the next lookups, as a scan's; a move when it differs enough
  /// from the scene the position stands for. Ignored while not following (nothing of it is
  /// kept).
  mutating func published(_ accessPoints: [WifiAccessPoint], unread: Int = 0, at now: Instant) {
    guard settings.enabled, follow.told == true else { return }
    counts.published += 1
    counts.unreadAccessPoints += unread
    scanProblem = nil
    see(accessPoints, at: now)
  }

  private mutating func see(_ accessPoints: [WifiAccessPoint], at now: Instant) {
    scanned = (GeolocateQuery.wifi(accessPoints), now)
    let scene = WifiScene(accessPoints)
    follow.lastPublished = now
    follow.seen = scene
    if let before = follow.lookedUp, !follow.moved, scene.moved(from: before) {
      follow.moved = true
      counts.moves += 1
    }
  }

  /// Whether the scene is to be followed now (`wanted`: network positioning is on and
  /// something holds acquisition open); the change to tell the shell, nil when none.
  mutating func following(_ wanted: Bool, at now: Instant) -> Bool? {
    let wanted = wanted && settings.enabled
    guard follow.told != wanted else { return nil }
    let first = follow.told == nil
    follow.told = wanted
    follow.since = wanted ? now : nil
    if !wanted { follow.lastPublished = nil }
    // Nothing to take back at the start.
    return first && !wanted ? nil : wanted
  }

  /// Whether the scene moved away from the one the network position stands for (the next
  /// lookup is wanted now, however fresh the position is).
  var sceneMoved: Bool { follow.moved }

  /// While following: when a scan of locd's own is due because the devices published
  /// nothing (and locd asked for no scan) for `RescanAfter=`; nil while not following.
  var quietScanAt: Instant? {
    guard follow.told == true, let since = follow.since else { return nil }
    return [since, follow.lastPublished ?? since, follow.lastScan ?? since].max()!.adding(
      settings.rescanAfter)
  }

  /// A modem source's serving cells now (none: unregistered, or the modem gone). Dropped
  /// while network positioning is off: nothing of them is kept for a later lookup.
  mutating func cellsSeen(_ seen: [CellTower], from source: SourceID) {
    guard settings.enabled, !seen.isEmpty else {
      cells[source] = nil
      return
    }
    cells[source] = seen
  }

  /// What to ask: the last scan's networks with the modems' cells now, else (none usable) an
  /// IP-only lookup when `IPLookup=yes`; nil while a scan is under way (its networks are
  /// awaited, not the last ones), before the first scan came back, and with nothing to ask.
  var query: GeolocateQuery? {
    guard scanning == nil, let scanned else { return nil }
    let networks = scanned.query.with(cells: cells.keys.sorted().flatMap { cells[$0] ?? [] })
    if networks.hasNetworks { return networks }
    return settings.ipLookup ? .ipOnly : nil
  }

  /// Whether a lookup of `query` goes out at `now`.
  mutating func want(_ query: GeolocateQuery, at now: Instant) -> Decision {
    guard settings.enabled, query.considerIp ? settings.ipLookup : query.hasNetworks else {
      return .off
    }
    if let kept = cache[query.cacheKey], now < kept.at.adding(settings.cacheFor) {
      lookedUp(query)
      // A remembered 'not found' answers nothing: status's 'from memory' counts positions
      // (it climbed with every event after a 404; issue 43, item 10).
      guard let located = kept.located else { return .cachedNotFound }
      counts.cacheHits += 1
      return .cached(located, query.origin)
    }
    guard inFlight == nil else { return .later(nil) }
    if let retryAt, now < retryAt { return .later(retryAt) }
    if let lastAsked, now < lastAsked.adding(settings.minInterval) {
      return .later(lastAsked.adding(settings.minInterval))
    }
    inFlight = query
    lastAsked = now
    counts.requests += 1
    lookedUp(query)
    return .send(query)
  }

  /// The network position will stand for `query`'s scene: a move is measured from it.
  private mutating func lookedUp(_ query: GeolocateQuery) {
    follow.moved = false
    follow.lookedUp = query.considerIp ? nil : follow.seen
  }

  /// The lookup under way ended with `outcome` at `now`: what kind of lookup it was, and the
  /// place or why not (nil when no lookup was under way: an answer from before a reload).
  mutating func answered(_ outcome: GeolocateOutcome, at now: Instant)
    -> (origin: PositionProvenance, result: Result<GeolocateAnswer.Located, GeolocateAnswer.Problem>)?
  {
    guard let query = inFlight else { return nil }
    inFlight = nil
    let result: Result<GeolocateAnswer.Located, GeolocateAnswer.Problem>
    switch outcome {
    case .skipped(let why):
      counts.requests -= 1
      counts.skipped += 1
      lastProblem = why
      retryAt = now.adding(settings.minInterval)
      return (query.origin, .failure(GeolocateAnswer.Problem(.transport, why)))
    case .failed(let kind, let detail): result = .failure(GeolocateAnswer.Problem(kind, detail))
    case .answered(let status, let body):
      // No better than what the lookup's kind can give (a Wi-Fi answer of 1e-300 m is 10 m),
      // before it is cached: an answer from memory is the same answer.
      result = GeolocateAnswer.judge(status: status, body: body).map { $0.floored(for: query.origin) }
    }
    switch result {
    case .success(let located):
      counts.answers += 1
      lastAnswered = now
      failures = 0
      retryAt = nil
      lastProblem = nil
      remember(query.cacheKey, Cached(located: located, at: now))
      return (query.origin, .success(located))
    case .failure(let problem):
      counts.failed[problem.kind, default: 0] += 1
      lastProblem = problem.detail
      if problem.kind == .notFound {
        // The service answered, and knows nothing of these networks: not a failure of it.
        lastAnswered = now
        failures = 0
        retryAt = nil
        remember(query.cacheKey, Cached(located: nil, at: now))
      } else {
        failures += 1
        // Counted from when the lookup was sent, as the minimum interval is.
        retryAt = (lastAsked ?? now).adding(Self.backoff(after: failures, from: settings.minInterval))
      }
      return (query.origin, .failure(problem))
    }
  }

  /// The wait after `failures` failures in a row: `MinInterval=` doubled for each, at most
  /// an hour (`NetworkSettings.maxBackoff`).
  static func backoff(after failures: Int, from base: Duration) -> Duration {
    let factor = Double(1 << min(max(failures, 1), 16))
    return min(.milliseconds(Int64(base.seconds * factor * 1000)), NetworkSettings.maxBackoff)
  }

  /// Keeps `answer` for `key`, dropping the oldest past `cacheLimit`.
  private mutating func remember(_ key: String, _ answer: Cached) {
    cache[key] = answer
    if cache.count > Self.cacheLimit, let oldest = cache.min(by: { $0.value.at < $1.value.at })?.key {
      cache[oldest] = nil
    }
  }

  /// What `status` shows: the switch, the service, when it last asked, how often; never
  /// the networks.
  var report: NetworkReport {
    var r = NetworkReport(
      enabled: settings.enabled, ipLookup: settings.ipLookup, service: settings.url, asking: inFlight != nil,
      lastAsked: lastAsked, lastAnswered: lastAnswered, retryAt: retryAt, lastProblem: lastProblem,
      counts: counts)
    r.following = follow.told == true
    r.scanProblem = settings.enabled ? scanProblem : nil
    return r
  }
}
