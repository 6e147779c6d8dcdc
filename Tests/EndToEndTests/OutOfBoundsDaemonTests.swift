import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// Issue 40, item 4, against the real locd: a `set-location` below a centimetre, a receiver's
/// accuracy below a centimetre and altitude above the atmosphere (NMEA over UDP, and a
/// modem's NMEA traces from the ModemManager STAND-IN, ModemStandIn.swift: not ModemManager,
/// which needs a modem), and a modem's cell answered with 1e-300 m by the geolocate STAND-IN
/// (GeolocateDaemonTests.StandIn: a local HTTP server speaking the geolocate API). The
/// bounds each test expects are docs/SOURCES.md's, "Bounds", with their reasons.
@Suite(.serialized) struct OutOfBoundsDaemonTests {
  /// `hhmmss.00` and `ddmmyy` of `time`, in UTC.
  static func nmeaTime(_ time: Date) -> (hms: String, dmy: String) {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: time)
    return (
      String(format: "%02d%02d%02d.00", c.hour!, c.minute!, c.second!),
      String(format: "%02d%02d%02d", c.day!, c.month!, c.year! % 100)
    )
  }

  /// One RTK cycle at `time` whose GST gives σ = 0.000001 m on both axes (a 68 % radius of
  /// 1.5 µm: below the 1 cm any receiver achieves) and whose GGA puts the antenna 250 km up
  /// (above the 100 km Kármán line).
  static func impossibleEpoch(at time: Date) -> String {
    let (hms, dmy) = nmeaTime(time)
    return nmea("GPRMC,\(hms),A,5954.0000,N,01042.0000,E,0.0,0.0,\(dmy),,,A")
      + nmea("GPGGA,\(hms),5954.0000,N,01042.0000,E,4,12,0.5,250000.0,M,18.0,M,,")
      + nmea("GPGST,\(hms),0.0,0.0,0.0,0.0,0.000001,0.000001,0.0")
  }

  @Test func setLocationBelowACentimetreIsRefusedAndShown() throws {
    // Before: accepted, stored in state.json with accuracy 0, and `status` said ±0 m.
    let dir = LocdProcess.makeDirectory()
    FileManager.default.createFile(atPath: dir + "/empty.nmea", contents: Data())
    let locd = try LocdProcess(
      arguments: ["--source", "replay:\(dir)/empty.nmea"], directory: dir, config: "[Position]\nStaticFile=\n"
    )
    let refused = try locd.locctl(["set-location", "59.9139,10.7522", "--accuracy", "0"])
    #expect(refused.status == 2, "invalid-params is a usage error: \(refused.stdout) \(refused.stderr)")
    #expect(refused.stderr.contains("\"accuracy\" must be at least 0.01 m"), "\(refused.stderr)")
    let s = try locd.status()
    #expect(s.manual == nil && s.position.tier == .none)
    let entry = try #require(s.outOfBounds?.recent.first)
    #expect(entry.source == "manual (uid \(getuid()))" && entry.provenance == .known(.manual))
    // 0 is not a radius at all: the bound it crossed is 0 itself (docs/SOURCES.md, "Bounds").
    #expect(entry.field == .known(.accuracy) && entry.value == 0 && entry.bound == 0)
    #expect(entry.action == .known(.refused))
    // A centimetre is a statement locd takes; the wire writes it as its smallest step, 0.1 m
    // (never 0: PROTOCOL.md, "position").
    #expect(try locd.locctl(["set-location", "59.9139,10.7522", "--accuracy", "0.01m"]).status == 0)
    #expect(try locd.status().manual?.accuracy == Meters(0.1))
    #expect(locd.stop() == 0)
  }

  @Test func aReceiversAccuracyBelowACentimetreIsRaisedAndItsAltitudeAboveTheAtmosphereDropped() throws {
    // Before: the fix was ±0.0000015 m (status rounded it to 0) at 250 km altitude.
    let port = freePort(datagram: true)
    let locd = try LocdProcess(arguments: ["--source", "nmea+udp://:\(port)"])
    _ = try locd.waitForStatus { $0.sourceState() == .known(.connected) }
    let now = Date()
    try sendDatagram("127.0.0.1", port, Array(Self.impossibleEpoch(at: now.addingTimeInterval(-2)).utf8))
    try sendDatagram("127.0.0.1", port, Array(Self.impossibleEpoch(at: now.addingTimeInterval(-1)).utf8))
    let s = try locd.waitForStatus { $0.fix != nil && ($0.outOfBounds?.recent.count ?? 0) >= 2 }
    // The 1 cm floor, on the wire as its smallest step (0.1 m): never 0.
    #expect(s.fix?.accuracy == Meters(0.1) && s.fix?.altitudeMSL == nil, "\(String(describing: s.fix))")
    #expect(try locd.locctl(["status"]).stdout.contains("±0.1 m"))
    let bounds = try #require(s.outOfBounds)
    let source = "nmea+udp://127.0.0.1:\(port)"
    let accuracy = try #require(bounds.recent.first { $0.field == .known(.accuracy) })
    #expect(accuracy.source == source && accuracy.provenance == .known(.gnss))
    #expect(accuracy.action == .known(.raised) && accuracy.bound == 0.01)
    #expect(abs(accuracy.value - 0.000001 * HorizontalAccuracy.radius68PerSigma) < 1e-12)
    let altitude = try #require(bounds.recent.first { $0.field == .known(.altitude) })
    #expect(altitude.value == 250_000 && altitude.bound == 100_000 && altitude.action == .known(.refused))
    // The receiver's same nonsense every cycle is one line in the log, not one a cycle.
    let lines = locd.log.components(separatedBy: "\n").filter {
      $0.contains("gnss value from \(source): accuracy")
    }
    #expect(lines.count == 1, "\(locd.log)")
    #expect(locd.stop() == 0)
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns its name, which the policy gives root only"),
    .enabled(if: ModemStandIn.installed, "needs dbus-daemon, busctl, python3-dbus and modemmanager-dev"))
  func aModemsNMEATracesAreHeldToTheSameBounds() throws {
    // A modem's GPS gives its fixes as NMEA traces (ModemManager's Location property): the
    // stand-in plays a log of one impossible cycle, dated a year ago (in the past, as a
    // recording: never ahead of the clock).
    let dir = LocdProcess.makeDirectory()
    let log = dir + "/impossible.nmea"
    try Self.impossibleEpoch(at: Date().addingTimeInterval(-365 * 86_400)).write(
      toFile: log, atomically: true, encoding: .utf8)
    let bus = try PrivateSystemBus(policies: [ModemStandIn.policy])
    let mm = ModemStandIn(bus: bus)
    try mm.start(log: log)
    try mm.addModem(0, equipment: ModemSourceTests.imei, capabilities: 7)
    let locd = try LocdProcess(arguments: ["--source", "modem:"], environment: bus.environment)
    let s = try locd.waitForStatus(timeout: 30) { $0.fix != nil && ($0.outOfBounds?.recent.count ?? 0) >= 2 }
    #expect(s.fix?.accuracy == Meters(0.1) && s.fix?.altitudeMSL == nil)
    let entries = try #require(s.outOfBounds?.recent)
    #expect(entries.allSatisfy { $0.source == "modem:" && $0.provenance == .known(.gnss) }, "\(entries)")
    #expect(Set(entries.map(\.field)) == [.known(.accuracy), .known(.altitude)])
    #expect(locd.stop() == 0)
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns its name, which the policy gives root only"),
    .enabled(if: ModemStandIn.installed, "needs dbus-daemon, busctl, python3-dbus and modemmanager-dev"))
  func aModemsCellAnsweredWith1eMinus300MetresIsFiftyMetres() throws {
    // A cell places the machine anywhere in it; the smallest cells reach tens of metres.
    let standIn = try GeolocateDaemonTests.StandIn(mode: "tiny")
    let rig = try ModemSourceTests.Rig(config: ModemCellTests.config(standIn, enable: true)) { mm in
      try mm.addModem(0, equipment: ModemSourceTests.imei, capabilities: ModemStandIn.cellID)
    }
    let s = try rig.locd.waitForStatus(timeout: 30) { $0.position.provenance == .known(.cell) }
    #expect(s.position.position?.accuracy == Meters(50))
    let entry = try #require(try rig.locd.status().outOfBounds?.recent.last)
    #expect(entry.provenance == .known(.cell) && entry.value == 1e-300 && entry.bound == 50)
    #expect(rig.locd.stop() == 0)
  }
}
