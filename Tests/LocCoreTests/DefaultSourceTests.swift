import LocCore
import Testing

/// The default source (none configured: gpsd on this machine) waits for a gpsd that is not
/// there yet instead of failing, and is set aside when locd's own gpsd face takes its port
/// (decision 0063). A configured source, even with the same URI, is shown as it is.
@Suite struct DefaultSourceTests {
  static let t0 = Instant(utc: CivilDate(year: 2026, month: 3, day: 1)!, hour: 12)
  static let uri = "gpsd://127.0.0.1:2947"
  let source = SourceID(0)
  let watcher = SessionID(3)

  /// What the shell reports after an attempt at 127.0.0.1:2947 was refused (its words are
  /// StreamConnection's: the failing call and strerror(ECONNREFUSED)).
  func refused(_ state: SourceState) -> SourceSnapshot {
    SourceSnapshot(
      id: source, uri: Self.uri, state: state, counters: [Counter("reconnectAttempts", 3)],
      lastError: "connect 127.0.0.1:2947: Connection refused")
  }

  @Test func nothingListeningIsWaitingWithoutAnError() {
    let retry = Self.t0.adding(.seconds(4))
    let waiting = refused(.reconnecting(retryAt: retry)).asDefaultSource(nobodyListens: true)
    #expect(waiting.state == .waiting(retryAt: retry))
    #expect(waiting.state.name == "waiting")
    #expect(waiting.lastError == nil)
    #expect(waiting.fault == nil)
    #expect(waiting.counters == [Counter("reconnectAttempts", 3)])
    // Released while acquisition is idle: still no gpsd, with no attempt planned.
    let idle = refused(.idle).asDefaultSource(nobodyListens: true)
    #expect(idle.state == .waiting(retryAt: nil))
    #expect(idle.lastError == nil)
  }

  @Test func anyOtherFailureOfTheDefaultSourceIsShownAsItIs() {
    // gpsd answered and then went, an attempt timed out: a failure like any other.
    let lost = refused(.reconnecting(retryAt: Self.t0)).asDefaultSource(nobodyListens: false)
    #expect(lost == refused(.reconnecting(retryAt: Self.t0)))
    let connected = SourceSnapshot(id: source, uri: Self.uri, state: .connected)
    #expect(connected.asDefaultSource(nobodyListens: true) == connected)
  }

  /// An engine started, a session subscribed to `source-status`.
  func subscribed(_ config: DaemonConfig = DaemonConfig()) -> Engine {
    var e = Engine(config: config)
    _ = e.handle(.started(nil, stateProblem: nil), at: Self.t0)
    _ = e.handle(.sessionOpened(watcher, Peer(pid: 3, uid: 0, gid: 0), .admin, client: "test"), at: Self.t0)
    _ = e.handle(.requestReceived(watcher, .number(1), .subscribe([.sourceStatus])), at: Self.t0)
    return e
  }

  /// The `source-status` events among `effects`.
  func told(_ effects: [Effect]) -> [SourceSnapshot] {
    effects.compactMap {
      if case .push(_, .sourceStatus(let s), _) = $0 { return s }
      return nil
    }
  }

  /// The STATUS= lines among `effects`.
  func statusLines(_ effects: [Effect]) -> [String] {
    effects.compactMap {
      if case .notifyStatus(let line) = $0 { return line }
      return nil
    }
  }

  @Test func theEngineShowsWaitingWithoutAFaultAndSaysSoOnTheStatusLine() throws {
    var e = subscribed()
    let t = Self.t0.adding(.seconds(1))
    let waiting = refused(.reconnecting(retryAt: t.adding(.seconds(1)))).asDefaultSource(nobodyListens: true)
    let effects = e.handle(.sourceUpdated(waiting, restarted: false), at: t)
    let event = try #require(told(effects).first)
    #expect(event.state == .waiting(retryAt: t.adding(.seconds(1))))
    #expect(event.fault == nil)
    let status = e.status(at: t)
    #expect(status.sources.first?.fault == nil)
    #expect(status.sources.first?.lastError == nil)
    // The position's reason, and so the STATUS= line, says what waiting means.
    let words = "no gpsd on this machine yet (locd connects to gpsd://127.0.0.1:2947 when it starts)"
    #expect(status.position.reason == words + ", no last known position and no manual location")
    #expect(status.summary.contains(words))
    #expect(!status.summary.contains("reconnecting") && !status.summary.contains("refused"))
    #expect(statusLines(effects).allSatisfy { !$0.contains("refused") })
    // The next attempts, refused too: no event (the state's name and the fault are the same).
    let again = refused(.reconnecting(retryAt: t.adding(.seconds(3)))).asDefaultSource(nobodyListens: true)
    #expect(told(e.handle(.sourceUpdated(again, restarted: false), at: t.adding(.seconds(2)))).isEmpty)
    // gpsd came: connected, one event.
    let up = SourceSnapshot(id: source, uri: Self.uri, state: .connected)
    #expect(
      told(e.handle(.sourceUpdated(up, restarted: true), at: t.adding(.seconds(3)))).map(\.state) == [
        .connected
      ])
  }

  @Test func aConfiguredSourceThatIsRefusedStillFails() {
    // The same URI, configured: the shell reports it as it is, and the engine makes the error
    // a fault (decision 0047).
    var e = subscribed()
    let effects = e.handle(
      .sourceUpdated(refused(.reconnecting(retryAt: Self.t0)), restarted: false), at: Self.t0)
    #expect(told(effects).first?.fault?.kind == .error)
    #expect(e.status(at: Self.t0).summary.contains("Connection refused"))
  }

  /// A configuration from locd.conf text, with no problem.
  func config(_ text: String) -> DaemonConfig {
    var c = DaemonConfig()
    let problems = c.apply(fileText: text, fileName: "locd.conf")
    #expect(problems.isEmpty, "\(problems)")
    return c
  }

  @Test func theDefaultSourceIsImplicitOnly() {
    #expect(DaemonConfig().usesDefaultSource)
    #expect(DaemonConfig().effectiveSources == [SourceURI.defaultSource])
    let configured = config("[Sources]\nSource=gpsd://127.0.0.1:2947\n")
    #expect(configured.effectiveSources == [SourceURI.defaultSource])
    #expect(!configured.usesDefaultSource)
  }

  @Test func theGpsdFaceOnGpsdsPortSetsTheDefaultSourceAside() {
    let face = config("[Gpsd]\nEnable=yes\nListenPort=2947\n")
    #expect(face.defaultSourceSetAside == .gpsdPort(2947))
    #expect(face.effectiveSources.isEmpty)
    #expect(!face.usesDefaultSource)
    #expect(face.sourceLoops.isEmpty, "the default source is set aside, not a configuration error")
    // The NMEA output's port there would be read as well.
    #expect(config("[NMEAOut]\nEnable=yes\nListenPort=2947\n").defaultSourceSetAside == .nmeaPort(2947))
    // Elsewhere, or not enabled, or no TCP port: the default source is used.
    for text in [
      "[Gpsd]\nEnable=yes\nListenPort=2948\n", "[Gpsd]\nEnable=no\nListenPort=2947\n", "[Gpsd]\nEnable=yes\n",
    ] {
      #expect(config(text).usesDefaultSource, "\(text)")
    }
  }

  @Test func statusSaysWhyThereIsNoSource() {
    var e = subscribed(config("[Gpsd]\nEnable=yes\nListenPort=2947\n"))
    let r = e.resolve(at: Self.t0)
    #expect(r.tier == .none)
    #expect(
      r.reason
        == "no source: the default gpsd://127.0.0.1:2947 would read locd's own gpsd face ([Gpsd] ListenPort=2947), "
        + "which stands in for gpsd; set Source= to the receiver, no last known position and no manual location"
    )
    #expect(e.status(at: Self.t0).summary.contains("no source: the default gpsd://127.0.0.1:2947"))
  }

  @Test func aConfiguredSourceReadingAFaceIsALoop() throws {
    let loops = config("[Gpsd]\nEnable=yes\nListenPort=2947\n[Sources]\nSource=gpsd://127.0.0.1:2947\n")
      .sourceLoops
    let loop = try #require(loops.first)
    #expect(loops.count == 1)
    #expect(loop.face == .gpsdPort(2947))
    #expect(
      loop.description.hasPrefix(
        "source gpsd://127.0.0.1:2947 would read locd's own gpsd face ([Gpsd] ListenPort=2947): "))
    // Whatever protocol the source speaks, at either TCP face.
    let both = "[Gpsd]\nEnable=yes\nListenPort=4000\n[NMEAOut]\nEnable=yes\nListenPort=4001\n"
    for (source, face) in [
      ("nmea+tcp://127.0.0.1:4000", OwnFace.gpsdPort(4000)), ("nmea+tcp://localhost:4001", .nmeaPort(4001)),
      ("gpsd://127.0.0.1:4001?nmea=1", .nmeaPort(4001)),
      ("serial:/run/locd/nmea0?baud=4800", .nmeaPty(link: "/run/locd/nmea0")),
      ("serial://run/locd/./nmea0", .nmeaPty(link: "/run/locd/nmea0")),
    ] {
      #expect(config(both + "[Sources]\nSource=\(source)\n").sourceLoops.map(\.face) == [face], "\(source)")
    }
    // Not a face: another port, a host that does not reach 127.0.0.1, another device.
    for source in [
      "gpsd://127.0.0.1:2947", "gpsd://[::1]:4000", "gpsd://127.0.0.2:4000", "nmea+tcp://gps.local:4001",
      "serial:/dev/ttyUSB0", "nmea+tcp-listen://:4000",
    ] {
      #expect(config(both + "[Sources]\nSource=\(source)\n").sourceLoops.isEmpty, "\(source)")
    }
    // The pty is a face only while the output is enabled.
    #expect(config("[Sources]\nSource=serial:/run/locd/nmea0\n").sourceLoops.isEmpty)
  }

  /// The hosts that reach a socket bound to 127.0.0.1, as found on Linux 6.x with glibc 2.36
  /// (getaddrinfo with AI_NUMERICHOST, then connect(2) to a listener on 127.0.0.1, for each
  /// form): the reference for LoopbackReach, written down from that run, not from its code.
  @Test(arguments: [
    ("127.0.0.1", true), ("0.0.0.0", true), ("127.1", true), ("0x7f.0.0.1", true), ("0177.0.0.1", true),
    ("2130706433", true), ("0x7F000001", true), ("127.000.000.001", true), ("0", true), ("00", true),
    ("::ffff:127.0.0.1", true), ("::FFFF:7f00:1", true), ("0:0:0:0:0:ffff:127.0.0.1", true),
    ("::ffff:0:0", true), ("localhost", true), ("LocalHost", true),
    // Refused by the listener: other loopback addresses, IPv6 loopback and unspecified.
    ("127.0.0.2", false), ("127.65536", false), ("::1", false), ("::", false),
    // Not read as addresses by getaddrinfo (and not localhost): no loop to catch.
    ("0x", false), ("08", false), ("1.2.3.256", false), ("+127.0.0.1", false), ("127.0.0.1.", false),
    ("::ffff:127.0.0.01", false), ("::ffff:+7f00:1", false), ("gps.local", false), ("", false),
  ])
  func hostsThatReachALoopbackListener(host: String, reaches: Bool) {
    #expect(LoopbackReach.reachesLoopbackListener(host) == reaches)
  }

  @Test func gpsdsSocketStartsTheBackoffOver() {
    var s = ReconnectSchedule()
    _ = s.attempting()
    // 1, 2, 4, 8 s (ReconnectBackoff doubles from 1 s).
    for step in 0..<4 {
      _ = s.failed(at: UInt64(step) * 1_000_000)
      _ = s.attempting()
    }
    s.startOver()
    // An attempt the moment the socket appears may be early: the next comes 1 s later.
    let next = s.failed(at: 20_000_000)
    #expect(next.delay == 1_000_000)
    #expect(!next.began, "the outage goes on")
  }
}
