/// The geolocation service (`[Network]`, decision 0050): a lookup only while acquisition
/// wants a fix and the last answer is no longer fresh; its answer becomes the resolver's
/// network candidate, published like a fix (never with its coordinates in the log).
extension Engine {
  /// Asks for a lookup when one is wanted and may go out; arms the timer for one held back.
  /// While something holds acquisition open the Wi-Fi scene is followed (decision 0066): what
  /// the devices publish is read, a scene that moved wants a lookup however fresh the
  /// position, and locd scans itself only when nothing was published for `RescanAfter=`.
  mutating func syncNetwork(at now: Instant, into effects: inout [Effect]) {
    let follow = syncWifiFollow(at: now, into: &effects)
    defer { armWifiRescan(follow, at: now, into: &effects) }
    // A valid static file outranks every network answer (PositionResolver): while one is in
    // use nothing is sent, at start either (issue 43, item 8).
    guard config.network.enabled, acquisition.isAcquiring, positions.staticFile.position == nil else {
      return
    }
    if let last = positions.networkPosition, let age = PositionResolver.age(of: last, at: now),
      age < config.network.freshFor, !network.sceneMoved
    {
      // Fresh, and the scene is the same: nothing is sent. A quiet scene is scanned now and
      // then while followed: the devices may have stopped publishing.
      if follow, let due = network.quietScanAt, now >= due, network.scanDue(at: now) {
        effects.append(.scanWifi(wait: config.network.scanWait))
      }
      return
    }
    // A scan first (at most one per MinInterval=); the lookup follows its answer. A scene
    // the devices published since the position's lookup needs none: it is the scan.
    if !network.sceneMoved, network.scanDue(at: now) {
      effects.append(.scanWifi(wait: config.network.scanWait))
      return
    }
    guard let query = network.query else { return }
    switch network.want(query, at: now) {
    case .send(let q):
      effects.append(.geolocate(q, url: config.network.url, timeout: config.network.timeout))
      effects.append(.log(.info, "asking \(config.network.url) for \(q.origin.withArticle) position"))
    case .cached(let located, let origin):
      acceptNetwork(located, origin: origin, at: now, into: &effects)
    case .cachedNotFound, .off: break
    case .later(let at): if let at { arm(.networkLookup, at: at, into: &effects) }
    }
  }

  /// Whether the Wi-Fi scene is followed now (network positioning on, acquiring, a
  /// subscriber holding acquisition open, no fresh GNSS fix), the shell told of a change.
  @discardableResult
  mutating func syncWifiFollow(at now: Instant, into effects: inout [Effect]) -> Bool {
    let follow =
      config.network.enabled && acquisition.isAcquiring && acquisition.hasHolders && !hasFreshGNSS(at: now)
      && positions.staticFile.position == nil
    if let change = network.following(follow, at: now) {
      effects.append(.followWifi(change))
      effects.append(
        .log(.debug, change ? "following the Wi-Fi scene" : "no longer following the Wi-Fi scene"))
      armWifiRescan(follow, at: now, into: &effects)
    }
    return follow
  }

  /// Arms the quiet scan while following, only in the future: a due scan that cannot go yet
  /// (one under way, the interval) moves the instant on.
  mutating func armWifiRescan(_ follow: Bool, at now: Instant, into effects: inout [Effect]) {
    let rescan = follow ? network.quietScanAt.map { max($0, network.nextScanAllowed ?? $0) } : nil
    arm(.wifiRescan, at: rescan.flatMap { $0 > now ? $0 : nil }, into: &effects)
  }

  /// Whether a fresh GNSS fix answers: the Wi-Fi scene need not be followed.
  func hasFreshGNSS(at now: Instant) -> Bool {
    let r = resolve(at: now)
    return r.tier == .fix && r.position?.origin == .gnss
  }

  /// The lookup ended: a position, or why not (status and the log say; a counter counts).
  mutating func handleGeolocate(_ outcome: GeolocateOutcome, at now: Instant, into effects: inout [Effect]) {
    guard let (origin, result) = network.answered(outcome, at: now) else { return }
    switch result {
    // An answer to a lookup sent before a reload turned network positioning off is dropped.
    case .success where !config.network.enabled: break
    case .success(let located):
      if let raised = located.outOfBounds {
        noteOutOfBounds([raised], from: config.network.url, origin, at: now, into: &effects)
      }
      acceptNetwork(located, origin: origin, at: now, into: &effects)
    case .failure(let problem):
      if let refused = problem.outOfBounds {
        noteOutOfBounds([refused], from: config.network.url, origin, at: now, into: &effects)
      }
      effects.append(.log(.notice, "no position from \(config.network.url): \(problem.detail)"))
      if let at = network.report.retryAt { arm(.networkLookup, at: at, into: &effects) }
    }
  }

  /// A position from the service: the network candidate, published; the zone hears of it.
  mutating func acceptNetwork(
    _ located: GeolocateAnswer.Located, origin: PositionProvenance, at now: Instant,
    into effects: inout [Effect]
  ) {
    let position = Position(
      coordinate: located.coordinate, accuracy: located.accuracy, time: now, receivedAt: now,
      source: config.network.url, origin: origin)
    positions.setNetwork(position)
    effects.append(
      .log(.info, "\(origin.rawValue) position from the service (±\(Int(located.accuracy.value)) m)"))
    if config.logLevel >= .debug {
      let c = located.coordinate
      effects.append(.log(.debug, "\(origin.rawValue) position \(c.latitude.value),\(c.longitude.value)"))
    }
    let resolved = resolve(at: now)
    publish(.location(resolved, fix: nil), at: now, into: &effects)
    answerLocates(at: now, into: &effects)
    if resolved.position == position {
      _ = zones.observe(position.coordinate, time: now, accuracy: position.accuracy)
    }
  }
}
