import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// The real locd with a `compass:` source on a private bus configured like the system bus,
/// against the iio-sensor-proxy stand-in (python3-dbusmock's iio-sensors-proxy template with
/// the compass object where iio-sensor-proxy has it: no compass exists here; see
/// SensorProxyStandIn.swift), driven over the control socket with `start-heading` and
/// `stop-heading` and checked through the `heading` events, `status` and the calls the
/// stand-in recorded.
@Suite(.serialized) struct CompassSourceTests {
  /// A bus, the stand-in, and locd with `compass:`.
  struct Rig {
    let bus: PrivateSystemBus
    let proxy: SensorProxyStandIn
    let locd: LocdProcess

    init(hasCompass: Bool = true, policies: [String] = SensorProxyStandIn.policies) throws {
      bus = try PrivateSystemBus(policies: policies)
      proxy = SensorProxyStandIn(bus: bus)
      try proxy.start(hasCompass: hasCompass)
      locd = try LocdProcess(arguments: ["--source", "compass:"], environment: bus.environment)
    }

    /// A client of locd (root: admin access) that said hello.
    func client(app: String? = nil) throws -> RawClient {
      let c = try RawClient(path: locd.socketPath)
      guard case .greeting = try c.readMessage() else { throw HarnessError("no greeting") }
      try c.send(.hello(app: app, client: "test"), id: .number(0))
      _ = try c.reply(to: .number(0), .hello(app: app, client: "test"))
      return c
    }
  }

  /// Sends `call` and returns its result.
  @discardableResult static func ask<R>(_ c: RawClient, _ call: Call<R>, id: Int = 1) throws -> R {
    try c.send(call, id: .number(Int64(id)))
    while true {
      switch try c.readMessage() {
      case .event: continue  // a heading that came first
      case .reply(let rid, let result) where rid == .number(Int64(id)): return try call.result(result)
      case .error(_, let reply): throw reply
      case let other: throw HarnessError("unexpected \(other.line)")
      }
    }
  }

  /// The magnetic headings of the `heading` events `c` gets until `count` came, or
  /// `seconds` passed with none.
  static func headings(_ c: RawClient, count: Int, seconds: Double = 5) -> [Double] {
    var out: [Double] = []
    while out.count < count {
      guard let message = try? c.readMessage(timeout: seconds) else { break }
      if case .event(let e) = message, case .heading(let h) = e.data { out.append(h.magneticHeading) }
    }
    return out
  }

  /// Polls `condition` every 50 ms (10 s at most).
  @discardableResult static func wait(timeout: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if try condition() { return true }
      usleep(50_000)
    }
    return try condition()
  }

  static let enabled = SensorProxyStandIn.installed && getuid() == 0

  @Test(
    .enabled(if: enabled, "needs root (the stand-in owns its name), dbus-daemon, busctl and python3-dbusmock")
  )
  func claimAndReleaseFollowNeedAndHeadingsHonourTheFilter() throws {
    let rig = try Rig()
    let locd = rig.locd
    defer { locd.stop() }
    // A compass, nobody wants heading: idle, and nothing claimed.
    var status = try locd.waitForStatus { $0.sourceState() == .known(.idle) && $0.counters()["compass"] == 1 }
    #expect(status.sources[0].uri == "compass:")
    #expect(try rig.proxy.calls() == [])

    // A client wants heading every 10°: ClaimCompass, the source connected.
    let a = try rig.client()
    try Self.ask(a, .startHeading(filter: 10))
    #expect(try Self.wait { try rig.proxy.calls() == ["ClaimCompass"] })
    status = try locd.waitForStatus { $0.counters()["claimed"] == 1 }
    #expect(status.sourceState() == .known(.connected))
    #expect(status.heading?.claimed == true && status.heading?.eligible == 1)
    // -1 (unknown) is no heading; 105 is 5° from 100 (held back), 111 is 11°, 355 is 116°, 3
    // is 8° across north (held back), 20 is 25°.
    for d in [-1, 100, 105, 111, 355, 3, 20.25] { try rig.proxy.heading(d) }
    #expect(Self.headings(a, count: 4) == [100, 111, 355, 20.3])
    status = try locd.waitForStatus { $0.counters()["headings"] == 6 }
    // Unknown twice: CompassHeading read right after the claim, and the -1 signalled.
    #expect(status.counters()["unknownHeadings"] == 2)

    // A second client with no filter hears the latest heading at once; the claim is one.
    var b: RawClient? = try rig.client()
    try Self.ask(b!, .startHeading(filter: 0))
    #expect(Self.headings(b!, count: 1) == [20.3])
    try Self.ask(a, .stopHeading, id: 2)
    try rig.proxy.heading(30)
    #expect(Self.headings(b!, count: 1) == [30])
    #expect(Self.headings(a, count: 1, seconds: 1) == [], "stopped: no more")
    #expect(try rig.proxy.calls() == ["ClaimCompass"])
    // The last one disconnects: ReleaseCompass, idle again, and readings are dropped.
    b = nil
    #expect(try Self.wait { try rig.proxy.calls() == ["ClaimCompass", "ReleaseCompass"] })
    _ = try locd.waitForStatus { $0.sourceState() == .known(.idle) && $0.counters()["claimed"] == 0 }
    try rig.proxy.heading(60)
    status = try locd.waitForStatus { $0.counters()["unclaimedHeadings"] == 1 }
    #expect(status.counters()["headings"] == 7)
    // Stopping what was not started is an error, not a claim.
    #expect(throws: ErrorReply.self) { try Self.ask(a, .stopHeading, id: 3) }
    #expect(try rig.proxy.calls() == ["ClaimCompass", "ReleaseCompass"])
  }

  @Test(
    .enabled(if: enabled, "needs root (the stand-in owns its name), dbus-daemon, busctl and python3-dbusmock")
  )
  func locctlHeadingPrintsHeadingsAndItsEndReleasesTheCompass() throws {
    let rig = try Rig()
    let locd = rig.locd
    defer { locd.stop() }
    _ = try locd.waitForStatus { $0.sourceState() == .known(.idle) }
    let output = locd.directory + "/heading.jsonl"
    let fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    let child = try Child(
      Binaries.locctl.path,
      ["--socket", locd.socketPath, "heading", "--filter", "0", "--count", "2", "--json"],
      stdoutFD: fd)
    close(fd)
    #expect(try Self.wait { try rig.proxy.calls() == ["ClaimCompass"] })
    _ = try locd.waitForStatus { $0.counters()["claimed"] == 1 }
    try rig.proxy.heading(12.5)
    try rig.proxy.heading(13)
    #expect(child.wait(timeout: 10) == 0)
    let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
    let headings = lines.compactMap { line -> Double? in
      guard case .event(let e)? = try? ServerMessage.decode(Array(line.utf8)), case .heading(let h) = e.data
      else { return nil }
      return h.magneticHeading
    }
    #expect(headings == [12.5, 13], "\(lines)")
    // locctl went away after its two: the compass is released.
    #expect(try Self.wait { try rig.proxy.calls() == ["ClaimCompass", "ReleaseCompass"] })
    let bad = try locd.locctl(["heading", "--filter", "200"])
    #expect(bad.status != 0 && bad.stderr.contains("0 to 180"), "\(bad.stderr)")
  }

  @Test(
    .enabled(if: enabled, "needs root (the stand-in owns its name), dbus-daemon, busctl and python3-dbusmock")
  )
  func anAppNotAuthorizedGetsNoHeadingAndClaimsNothing() throws {
    let rig = try Rig()
    let locd = rig.locd
    defer { locd.stop() }
    _ = try locd.waitForStatus { $0.sourceState() == .known(.idle) }
    let app = try rig.client(app: "org.example.Compass")
    try Self.ask(app, .setActivity(.foreground))
    // Accepted (its delivery is gated), but an app without a decision may not have it.
    try Self.ask(app, .startHeading(filter: 0), id: 2)
    try rig.proxy.heading(90)
    #expect(Self.headings(app, count: 1, seconds: 1) == [])
    #expect(try rig.proxy.calls() == [], "no session that may have heading: no claim")
    // Granted while in use: claimed; the heading iio-sensor-proxy holds when claimed (read
    // after the claim), then the next reading.
    #expect(try locd.locctl(["apps", "grant", "org.example.Compass"]).status == 0)
    #expect(try Self.wait { try rig.proxy.calls() == ["ClaimCompass"] })
    #expect(Self.headings(app, count: 1) == [90])
    try rig.proxy.heading(120)
    #expect(Self.headings(app, count: 1) == [120])
    // Denied: released.
    #expect(try locd.locctl(["apps", "deny", "org.example.Compass"]).status == 0)
    #expect(try Self.wait { try rig.proxy.calls() == ["ClaimCompass", "ReleaseCompass"] })
  }

  @Test(
    .enabled(if: enabled, "needs root (the stand-in owns its name), dbus-daemon, busctl and python3-dbusmock")
  )
  func theProxyVanishingAndComingBackIsClaimedAgain() throws {
    let rig = try Rig()
    let locd = rig.locd
    defer { locd.stop() }
    let a = try rig.client()
    try Self.ask(a, .startHeading(filter: 0))
    _ = try locd.waitForStatus { $0.counters()["claimed"] == 1 }
    rig.proxy.stop(signal: SIGKILL)
    var status = try locd.waitForStatus { $0.counters()["proxyVanished"] == 1 }
    #expect(status.counters()["claimed"] == 0 && status.counters()["proxy"] == 0)
    #expect(status.sources[0].lastError?.contains("not on the system bus") == true)
    // Back: a new iio-sensor-proxy, claimed again because the client still wants heading.
    try rig.proxy.start()
    #expect(try Self.wait { try rig.proxy.calls() == ["ClaimCompass"] })
    status = try locd.waitForStatus { $0.counters()["claimed"] == 1 }
    #expect(status.counters()["proxyAppeared"] == 2 && status.counters()["claims"] == 2)
    try rig.proxy.heading(45)
    #expect(Self.headings(a, count: 1) == [45])
  }

  @Test(
    .enabled(if: enabled, "needs root (the stand-in owns its name), dbus-daemon, busctl and python3-dbusmock")
  )
  func aDeviceWithoutACompassIsAStateAndNoClaim() throws {
    let rig = try Rig(hasCompass: false)
    let locd = rig.locd
    defer { locd.stop() }
    let a = try rig.client()
    try Self.ask(a, .startHeading(filter: 0))
    let status = try locd.waitForStatus { $0.sources[0].lastError?.contains("no compass") == true }
    #expect(status.counters()["compass"] == 0 && status.counters()["wanted"] == 1)
    #expect(status.sourceState() == .known(.starting))
    usleep(300_000)
    #expect(try rig.proxy.calls() == [], "HasCompass false: nothing claimed")
    // A compass appears (HasCompass changes): claimed, as wanted.
    try rig.proxy.setHasCompass(true)
    #expect(try Self.wait { try rig.proxy.calls() == ["ClaimCompass"] })
    try rig.proxy.heading(180)
    #expect(Self.headings(a, count: 1) == [180])
  }

  @Test(
    .enabled(
      if: enabled, "needs root (the stand-in owns its name), dbus-daemon, busctl and python3-dbusmock"),
    .enabled(
      if: FileManager.default.fileExists(atPath: SensorProxyStandIn.ownPolicy),
      "needs iio-sensor-proxy's own bus policy (its package)"))
  func withoutLocdsBusPolicyTheCompassIsRefusedAndSaidSo() throws {
    // iio-sensor-proxy's policy alone lets only geoclue at the compass: locd (root here) is
    // refused GetAll, shows why, and claims nothing.
    let rig = try Rig(policies: SensorProxyStandIn.policies.filter { !$0.hasSuffix("SensorProxy.locd.conf") })
    let locd = rig.locd
    defer { locd.stop() }
    let a = try rig.client()
    try Self.ask(a, .startHeading(filter: 0))
    let status = try locd.waitForStatus { $0.counters()["readErrors"] ?? 0 >= 1 }
    #expect(
      status.sources[0].lastError?.contains("net.hadess.SensorProxy.locd.conf") == true, "\(status.sources)")
    #expect(status.sources[0].lastError?.contains("AccessDenied") == true, "\(status.sources)")
    #expect(status.counters()["claimed"] == 0 && status.counters()["compass"] == 0)
    #expect(try rig.proxy.calls() == [])
  }

  @Test(
    .enabled(if: enabled, "needs root (the stand-in owns its name), dbus-daemon, busctl and python3-dbusmock")
  )
  func theStandInHasTheRealInterfacesMembers() throws {
    let bus = try PrivateSystemBus(policies: SensorProxyStandIn.policies)
    let proxy = SensorProxyStandIn(bus: bus)
    try proxy.start()
    let introspected = try proxy.introspectedMembers()
    #expect(
      introspected == ["ClaimCompass method", "ReleaseCompass method", "HasCompass b", "CompassHeading d"])
    // iio-sensor-proxy's binary carries its introspection XML: when its package is installed,
    // the stand-in is held to it.
    let real = SensorProxyStandIn.realMembers()
    if FileManager.default.fileExists(atPath: SensorProxyStandIn.binary) {
      #expect(real != nil, "the XML is found in \(SensorProxyStandIn.binary)")
    }
    if let real { #expect(introspected == real) }
  }
}
