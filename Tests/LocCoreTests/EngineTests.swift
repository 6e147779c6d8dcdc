import LocCore
import Testing

/// Engine scenarios: (instant, event) lists in, effects out. No clock, no I/O.
@Suite struct EngineTests {
  static let t0 = Instant(utc: CivilDate(year: 2026, month: 3, day: 1)!, hour: 12)
  static let oslo = Coordinate(lat: 59.9139, lon: 10.7522)!
  let source = SourceID(0)

  func fix(_ c: Coordinate, at t: Instant, accuracy: Double = 5, mode: FixMode = .threeD) -> Fix {
    Fix(
      time: t, coordinate: c, mode: mode, quality: .gps, horizontalAccuracy: Meters(accuracy),
      satellitesUsed: 9)
  }

  func started(_ config: DaemonConfig = DaemonConfig(), state: StoredState? = nil) -> Engine {
    var e = Engine(config: config)
    _ = e.handle(.started(state, stateProblem: nil), at: Self.t0)
    _ = e.handle(
      .sourceUpdated(SourceSnapshot(id: source, uri: "replay:x", state: .connected), restarted: true),
      at: Self.t0)
    return e
  }

  func persisted(_ effects: [Effect]) -> [StoredState] {
    effects.compactMap { if case .persist(let s) = $0 { return s } else { return nil } }
  }

  @Test func freshFixThenStaleThenCached() {
    var e = started()
    let effects = e.handle(.fixDecoded(fix(Self.oslo, at: Self.t0), source: source), at: Self.t0)
    #expect(e.resolve(at: Self.t0).tier == .fix)
    #expect(effects.contains(.arm(.freshness, at: Self.t0.adding(.seconds(10)))))
    // The first position is persisted at once, so a crash right after still knows it.
    #expect(persisted(effects).first?.lastKnown?.coordinate == Self.oslo)
    let later = Self.t0.adding(.seconds(10))
    _ = e.handle(.timerFired(.freshness), at: later)
    let resolved = e.resolve(at: later)
    #expect(resolved.tier == .cached)
    #expect(resolved.age == .seconds(10))
    #expect(resolved.reason?.contains("last known") == true)
  }

  @Test func degradedModeSaysWhyAndWhatToDo() {
    var e = Engine(config: DaemonConfig())
    _ = e.handle(.started(nil, stateProblem: nil), at: Self.t0)
    _ = e.handle(
      .sourceUpdated(
        SourceSnapshot(
          id: source, uri: "gpsd://127.0.0.1:2947", state: .reconnecting(retryAt: Self.t0),
          lastError: "connect: Connection refused"),
        restarted: true), at: Self.t0)
    let r = e.resolve(at: Self.t0)
    #expect(r.tier == .none)
    #expect(r.position == nil)
    #expect(r.reason?.contains("Connection refused") == true)
    #expect(r.remedy?.contains("locctl set-location") == true)
  }

  @Test func restartAnswersFromStateFileAtOnce() {
    let stored = Position(
      coordinate: Self.oslo, accuracy: 8, time: Self.t0, receivedAt: Self.t0, source: "replay:x")
    var e = Engine(config: DaemonConfig())
    let later = Self.t0.adding(.seconds(3600))
    _ = e.handle(.started(StoredState(lastKnown: stored), stateProblem: nil), at: later)
    let r = e.resolve(at: later)
    #expect(r.tier == .cached)
    #expect(r.position?.coordinate == Self.oslo)
    #expect(r.age == .seconds(3600))
  }

  @Test func ladderOrderCachedBeforeManual() {
    var e = started()
    _ = e.handle(.sessionOpened(SessionID(1), Peer(pid: 1, uid: 0, gid: 0), .admin, client: nil), at: Self.t0)
    let bergen = Coordinate(lat: 60.39, lon: 5.32)!
    _ = e.handle(
      .requestReceived(SessionID(1), .number(1), .setLocation(bergen, name: "home", accuracy: nil)),
      at: Self.t0)
    #expect(e.resolve(at: Self.t0).tier == .manual)
    _ = e.handle(.fixDecoded(fix(Self.oslo, at: Self.t0), source: source), at: Self.t0)
    #expect(e.resolve(at: Self.t0).tier == .fix)
    let later = Self.t0.adding(.seconds(60))
    #expect(e.resolve(at: later).tier == .cached)
    _ = e.handle(.requestReceived(SessionID(1), .number(2), .clearLocation), at: later)
    #expect(e.resolve(at: later).position?.coordinate == Self.oslo)
  }

  @Test func dropsNoFixSimulatedAndOlderFixes() {
    var e = started()
    _ = e.handle(.fixDecoded(fix(Self.oslo, at: Self.t0, mode: .noFix), source: source), at: Self.t0)
    #expect(e.resolve(at: Self.t0).tier == .none)
    var sim = fix(Self.oslo, at: Self.t0)
    sim.quality = .simulated
    _ = e.handle(.fixDecoded(sim, source: source), at: Self.t0)
    #expect(e.resolve(at: Self.t0).tier == .none)
    _ = e.handle(.fixDecoded(fix(Self.oslo, at: Self.t0), source: source), at: Self.t0)
    let elsewhere = Self.oslo.destination(distance: 50_000, bearing: 0)
    // Older than the current fix from the same stream: dropped.
    let effects = e.handle(
      .fixDecoded(fix(elsewhere, at: Self.t0.adding(.seconds(-1))), source: source), at: Self.t0)
    #expect(effects.isEmpty)
    #expect(e.resolve(at: Self.t0).position?.coordinate == Self.oslo)
    // After the stream restarts (replay loop, reconnect), older times are fine again.
    _ = e.handle(
      .sourceUpdated(SourceSnapshot(id: source, uri: "replay:x", state: .connected), restarted: true),
      at: Self.t0)
    _ = e.handle(.fixDecoded(fix(elsewhere, at: Self.t0.adding(.seconds(-1))), source: source), at: Self.t0)
    #expect(e.resolve(at: Self.t0).position?.coordinate == elsewhere)
  }

  @Test func persistsOnlyOnSignificantMoves() {
    var e = started()
    var writes = 0
    var t = Self.t0
    // 30 m of jitter for an hour at 1 Hz: one write (the first position), no more.
    for i in 0..<3600 {
      let c = Self.oslo.destination(
        distance: Meters(Double(i % 7) * 5), bearing: Degrees(Double(i * 37 % 360)))
      writes += persisted(e.handle(.fixDecoded(fix(c, at: t), source: source), at: t)).count
      t = t.adding(.seconds(1))
    }
    #expect(writes == 1)
    // 1 km + accuracy radii away: significant. A minute later, so it is a drive and not an
    // implausible jump (which acceptance drops).
    t = t.adding(.seconds(60))
    let far = Self.oslo.destination(distance: 1020, bearing: 90)
    let effects = e.handle(.fixDecoded(fix(far, at: t), source: source), at: t)
    #expect(persisted(effects).count == 1)
    #expect(
      effects.contains(where: {
        if case .log(.info, let m) = $0 { return m.hasPrefix("significant move of 10") } else { return false }
      }))
  }

  @Test func stoppingPersistsTheLatestPosition() {
    var e = started()
    _ = e.handle(.fixDecoded(fix(Self.oslo, at: Self.t0), source: source), at: Self.t0)
    let near = Self.oslo.destination(distance: 300, bearing: 0)
    let t1 = Self.t0.adding(.seconds(1))
    #expect(persisted(e.handle(.fixDecoded(fix(near, at: t1), source: source), at: t1)).isEmpty)
    let saved = persisted(e.handle(.stopping, at: t1))
    #expect(saved.count == 1)
    #expect(saved.first?.lastKnown?.coordinate == near)
    #expect(persisted(e.handle(.stopping, at: t1)).isEmpty)
  }

  @Test func permissionsGuardReadsAndWrites() {
    var e = started()
    _ = e.handle(.fixDecoded(fix(Self.oslo, at: Self.t0), source: source), at: Self.t0)
    let stranger = SessionID(7)
    let reader = SessionID(8)
    _ = e.handle(
      .sessionOpened(stranger, Peer(pid: 2, uid: 1234, gid: 1234), .none, client: nil), at: Self.t0)
    _ = e.handle(.sessionOpened(reader, Peer(pid: 3, uid: 1000, gid: 100), .read, client: nil), at: Self.t0)
    for request in [Request.status, .subscribe([.location])] {
      let effects = e.handle(.requestReceived(stranger, .number(1), request), at: Self.t0)
      #expect(effects.count == 1)
      guard case .reply(_, _, .failure(let error)) = effects[0] else {
        Issue.record("expected an error, got \(effects)")
        continue
      }
      #expect(error.code == .permissionDenied)
    }
    let write = e.handle(
      .requestReceived(reader, .number(2), .setLocation(Self.oslo, name: nil, accuracy: nil)), at: Self.t0)
    guard case .reply(_, _, .failure(let error))? = write.first else {
      Issue.record("expected permission-denied")
      return
    }
    #expect(error.code == .permissionDenied)
    // Events never reach a session without read access, even if it asked.
    let pushes = e.handle(
      .fixDecoded(fix(Self.oslo, at: Self.t0.adding(.seconds(1))), source: source), at: Self.t0)
    #expect(
      !pushes.contains(where: {
        if case .push(let ids, _, _) = $0 { return ids.contains(stranger) } else { return false }
      }))
  }

  @Test func subscribersGetLocationAndSourceEvents() {
    var e = started()
    let s = SessionID(3)
    _ = e.handle(.sessionOpened(s, Peer(pid: 3, uid: 0, gid: 0), .admin, client: "test"), at: Self.t0)
    let sub = e.handle(.requestReceived(s, .number(1), .subscribe([.location, .sourceStatus])), at: Self.t0)
    #expect(sub.contains(.reply(s, .number(1), .success(.subscriptions([.location, .sourceStatus])))))
    // The current answer comes at once.
    #expect(
      sub.contains(where: {
        if case .push(let ids, .location, _) = $0 { return ids.contains(s) } else { return false }
      }))
    let f = fix(Self.oslo, at: Self.t0)
    let effects = e.handle(.fixDecoded(f, source: source), at: Self.t0)
    #expect(
      effects.contains(where: {
        if case .push(let ids, .location(_, fix: f), _) = $0 { return ids.contains(s) } else { return false }
      }))
    let lost = SourceSnapshot(
      id: source, uri: "replay:x", state: .reconnecting(retryAt: Self.t0), lastError: "EOF")
    let pushes = e.handle(.sourceUpdated(lost, restarted: false), at: Self.t0)
    var told = lost
    told.fault = SourceFault(kind: .error, reason: "EOF", since: Self.t0)
    #expect(pushes.contains(.push([s], .sourceStatus(told), at: Self.t0)))
    _ = e.handle(.sessionClosed(s), at: Self.t0)
    let none = e.handle(
      .fixDecoded(fix(Self.oslo, at: Self.t0.adding(.seconds(1))), source: source), at: Self.t0)
    #expect(!none.contains(where: { if case .push = $0 { return true } else { return false } }))
  }

  @Test func systemdStatusIsThrottledButTierChangesAreImmediate() {
    var e = started()
    var t = Self.t0
    var statuses: [String] = []
    for i in 0..<30 {
      var f = fix(Self.oslo, at: t)
      f.satellitesUsed = 5 + i % 5
      for effect in e.handle(.fixDecoded(f, source: source), at: t) {
        if case .notifyStatus(let line) = effect { statuses.append(line) }
      }
      t = t.adding(.seconds(1))
    }
    // 30 s of fixes with changing satellite counts: the first line plus at most one per 10 s.
    #expect(statuses.count >= 2 && statuses.count <= 4)
    #expect(statuses.first?.hasPrefix("3D fix") == true)
    let stale = t.adding(.seconds(20))
    let effects = e.handle(.timerFired(.freshness), at: stale)
    #expect(
      effects.contains(where: {
        if case .notifyStatus(let l) = $0 { return l.hasPrefix("cached position") } else { return false }
      }))
    #expect(!statuses.contains(where: { $0.contains("59.9") }))  // never coordinates
  }

  /// A list that writes a state file carries the write first: a reply never acknowledges
  /// what is not on disk yet (issue 28: kill -9 right after a change-app reply).
  @Test func aChangeIsWrittenBeforeTheReplyThatAcknowledgesIt() throws {
    var e = started()
    _ = e.handle(.appsLoaded(nil, problem: nil), at: Self.t0)
    let s = SessionID(4)
    _ = e.handle(.sessionOpened(s, Peer(pid: 3, uid: 0, gid: 0), .admin, client: nil), at: Self.t0)
    let effects = e.handle(
      .requestReceived(
        s, .number(1), .changeApp(AppID("org.example.Maps")!, uid: 1000, .grant(.always, .full))),
      at: Self.t0)
    let write = try #require(effects.firstIndex { if case .persistApps = $0 { true } else { false } })
    let reply = try #require(effects.firstIndex { if case .reply = $0 { true } else { false } })
    #expect(write < reply, "\(effects)")
    #expect(effects.prefix { $0.writesStateFile }.count == effects.filter(\.writesStateFile).count)
  }

  /// The position stream does not wait for the disk: a fix's location event comes before the
  /// last-known write that fix causes, while its significant-change event (which reports the
  /// stored change) comes after it (issue 22: the write ahead of every push made the first
  /// fix's delivery to 100 subscribers the slowest by the time of an fsync).
  @Test func aFixReachesSubscribersBeforeItsLastKnownWrite() throws {
    var e = started()
    let s = SessionID(3)
    _ = e.handle(.sessionOpened(s, Peer(pid: 3, uid: 0, gid: 0), .admin, client: "test"), at: Self.t0)
    _ = e.handle(
      .requestReceived(s, .number(1), .subscribe([.location, .significantChange])), at: Self.t0)
    let effects = e.handle(.fixDecoded(fix(Self.oslo, at: Self.t0), source: source), at: Self.t0)
    let location = try #require(
      effects.firstIndex { if case .push(_, .location(_, fix: .some), _) = $0 { true } else { false } })
    let write = try #require(effects.firstIndex { if case .persist = $0 { true } else { false } })
    let significant = try #require(
      effects.firstIndex { if case .push(_, .significantChange, _) = $0 { true } else { false } })
    #expect(location < write, "\(effects)")
    #expect(write < significant, "\(effects)")
  }

  @Test func reloadAnswersTheRequester() {
    var e = started()
    let s = SessionID(4)
    _ = e.handle(.sessionOpened(s, Peer(pid: 3, uid: 0, gid: 0), .admin, client: nil), at: Self.t0)
    let ask = e.handle(.requestReceived(s, .string("r"), .reload), at: Self.t0)
    let ref = RequestRef(session: s, id: .string("r"))
    #expect(ask == [.reloadConfiguration(requestedBy: ref)])
    let bad = e.handle(
      .configReloaded(.failure(ReloadFailure(problems: ["/etc/locd/locd.conf:3: bad"])), requestedBy: ref),
      at: Self.t0)
    #expect(
      bad.contains(.reply(s, .string("r"), .failure(RequestError(.failed, "/etc/locd/locd.conf:3: bad")))))
    var config = DaemonConfig()
    config.freshFor = .seconds(30)
    let good = e.handle(.configReloaded(.success(config), requestedBy: ref), at: Self.t0)
    #expect(good.contains(.reply(s, .string("r"), .success(.done))))
    #expect(e.config.freshFor == .seconds(30))
  }
}
