import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// A Linux phone's day in one run of the real locd: the modem's GNSS and serving cell, the
/// compass and Wi-Fi, all on one private bus configured like the system bus, each a
/// STAND-IN because none of the hardware exists here: ModemManager is
/// Tests/Peers/modemmanager-stand-in.py (ModemStandIn.swift; its receiver starts cold, no fix
/// for 3 s after its GPS is switched on), iio-sensor-proxy is python3-dbusmock's
/// iio-sensors-proxy template with the compass object (SensorProxyStandIn.swift),
/// NetworkManager is python3-dbusmock's networkmanager template, and the geolocation
/// service is the geolocate stand-in (a local HTTP server speaking the geolocate API).
/// The sources are live bus peers, so the run is in real time (a few seconds), not under
/// `--clock replay`, which drives only recorded logs.
@Suite(.serialized) struct PhoneRunTests {
  static let enabled =
    getuid() == 0 && ModemStandIn.installed && SensorProxyStandIn.installed && WifiDaemonTests.installed

  @Test(
    .enabled(
      if: enabled,
      "needs root (the stand-ins own their names), dbus-daemon, busctl, python3-dbus(mock) and modemmanager-dev"
    ))
  func firstFixSleepAndWakeOnAnAppsRequestWithTheCompassClaimedOnlyWhileWanted() throws {
    let bus = try PrivateSystemBus(
      policies: [ModemStandIn.policy, WifiDaemonTests.policy] + SensorProxyStandIn.policies)
    let mm = ModemStandIn(bus: bus)
    try mm.start()
    // No assistance offered (types 0): the receiver's first fix comes 3 s after its start.
    try mm.setNewModemAssistance(types: 0, servers: [], coldMs: 3000, warmMs: 3000)
    try mm.addModem(
      0, equipment: ModemSourceTests.imei, capabilities: ModemStandIn.cellID | ModemStandIn.gpsNMEA)
    let proxy = SensorProxyStandIn(bus: bus)
    try proxy.start()
    let nm = try WifiDaemonTests.networkManagerStandIn(on: bus)
    defer { nm.stop() }
    try WifiDaemonTests.addWifi(
      bus, [("home", "home", "00:11:22:33:44:01", 80), ("office", "office", "00:11:22:33:44:02", 60)])
    let lookup = try GeolocateDaemonTests.StandIn(mode: "ok")
    let locd = try LocdProcess(
      arguments: ["--source", "modem:", "--source", "compass:"], environment: bus.environment,
      config: """
        [Position]
        StaticFile=
        FreshFor=2s
        [Network]
        Enable=yes
        URL=\(lookup.url)
        MinInterval=1s
        [Acquisition]
        RefreshInterval=1h
        """)
    defer { locd.stop() }

    // Before the cold receiver has a fix, the lookup's position (Wi-Fi and the cell).
    let early = try locd.waitForStatus(timeout: 20) {
      $0.position.provenance != nil && $0.position.tier == .fix
    }
    #expect(
      early.position.provenance == .known(.wifi) || early.position.provenance == .known(.cell),
      "\(early.position)")
    let body = try #require((lookup.requests.first?["body"] as? String).flatMap { try? JSON.parse($0) })
    #expect(body["wifiAccessPoints"]?.array?.count == 2 && body["cellTowers"]?.array?.count == 1, "\(body)")
    // The first GNSS fix, then sleep: acquisition idle, the modem's GPS off (its cell kept).
    let fixed = try locd.waitForStatus(timeout: 30) {
      $0.position.provenance == .known(.gnss) && $0.sourceState(0) == .known(.idle)
    }
    #expect(fixed.sources.map(\.uri) == ["modem:", "compass:"])
    #expect(fixed.sourceState(1) == .known(.idle), "nobody wants heading: the compass is not claimed")
    #expect(try proxy.calls() == [])
    let asleep = try #require(mm.setups.last)
    #expect(
      asleep.sources & ModemStandIn.gpsNMEA == 0 && asleep.sources & ModemStandIn.cellID != 0, "\(mm.setups)")
    let setupsAsleep = mm.setups.count

    // An app wants heading: the compass is claimed, a turn reaches it.
    let app = try RawClient(path: locd.socketPath)
    guard case .greeting = try app.readMessage() else { throw HarnessError("no greeting") }
    try app.send(.hello(app: nil, client: "phone-app"), id: .number(0))
    _ = try app.reply(to: .number(0), .hello(app: nil, client: "phone-app"))
    try CompassSourceTests.ask(app, .startHeading(filter: 5))
    #expect(try CompassSourceTests.wait { try proxy.calls() == ["ClaimCompass"] })
    _ = try locd.waitForStatus { $0.heading?.claimed == true }
    let shown = try locd.locctl(["status"]).stdout
    #expect(
      shown.contains("Heading:") && shown.contains("compass claimed, 1 session wants heading"), "\(shown)")
    try proxy.heading(271.5)
    #expect(CompassSourceTests.headings(app, count: 1) == [271.5])
    #expect(mm.setups.count == setupsAsleep, "heading alone does not wake the GNSS")

    // Later (the fix no longer fresh after FreshFor=2s), the app asks where it is, to 50 m:
    // the GNSS wakes (Setup with the GPS again) and the answer is a fresh GNSS fix.
    usleep(2_500_000)
    // Meanwhile the position is the last GNSS fix, cached: not the Wi-Fi and cell answer, which
    // came before the fix and places the machine in another city (the stand-ins' Oslo
    // against the receiver's Seattle).
    let aged = try locd.status()
    #expect(aged.position.tier == .cached && aged.position.provenance == .known(.cached), "\(aged.position)")
    #expect(aged.position.position?.source == "modem:", "\(aged.position)")
    let answer = try CompassSourceTests.ask(app, .locate(timeout: .seconds(30), accuracy: Meters(50)), id: 2)
    #expect(answer.accuracyMet, "\(answer)")
    #expect(answer.position.position?.source == "modem:", "\(answer.position)")
    let woken = Array(mm.setups.dropFirst(setupsAsleep))
    #expect(woken.first.map { $0.sources & ModemStandIn.gpsNMEA != 0 } == true, "\(mm.setups)")

    // Heading no longer wanted: released. Stopped: the modem's GPS given back.
    try CompassSourceTests.ask(app, .stopHeading, id: 3)
    #expect(try CompassSourceTests.wait { try proxy.calls() == ["ClaimCompass", "ReleaseCompass"] })
    #expect(locd.stop() == 0)
    #expect(mm.setups.last.map { $0.sources & ModemStandIn.gpsNMEA == 0 } == true, "\(mm.setups)")
  }
}
