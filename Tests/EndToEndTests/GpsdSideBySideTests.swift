import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// Four receivers' logs played once to the real gpsd 3.22 (gpsfake) and to locd (a replay
/// with the gpsd face on), both read with `gpspipe -w`: every TPV field of every cycle compared
/// (issue 42). The reference is gpsd; the differences that are left are listed here, each with
/// its reason, and in docs/GPSD.md ("What is not gpsd's").
@Suite(.serialized) struct GpsdSideBySideTests {
  /// A log, and why it is one of the four (Tests/Fixtures/nmea/PROVENANCE.md).
  struct Receiver: Sendable, CustomStringConvertible {
    let log: String
    let why: String
    var description: String { log }
  }

  static let receivers = [
    Receiver(log: "bu353s4.log", why: "GlobalSat BU-353-S4 (SiRF IV): GPS only, a steady 3D fix"),
    Receiver(
      log: "bu353-glonass.log", why: "GlobalSat BU-353 GLONASS: GPS and GLONASS, a 3D fix lost for ten cycles"
    ),
    Receiver(log: "furuno_gl_ga.log", why: "Furuno GT-88: GPS, GLONASS and Galileo, DGPS (GGA quality 2)"),
    Receiver(
      log: "ublox-zed-f9p-nmea.log", why: "u-blox ZED-F9P: four constellations, NMEA 4.11, GST and GBS"),
  ]

  /// The members compared, in gpsd's order.
  static let fields = [
    "status", "mode", "lat", "lon", "altHAE", "altMSL", "alt", "ept", "epx", "epy", "epv", "track",
    "magtrack",
    "magvar", "speed", "climb", "epd", "eps", "epc", "geoidSep", "eph", "sep",
  ]

  /// What gpsd and locd each sent: the last TPV of each time (gpsd may send several for a
  /// cycle, each knowing more), by time of day (gpsd 3.22 moves some logs' dates 1024 weeks).
  static func lastTPVs(_ capture: GpsdFaceRig.Capture) -> [String: JSON] {
    var out: [String: JSON] = [:]
    for tpv in capture.reports("TPV") {
      guard let time = tpv["time"]?.string else { continue }
      out[String(time.drop(while: { $0 != "T" }))] = tpv
    }
    return out
  }

  /// The comparison of one member over the cycles both sent.
  struct Tally: CustomStringConvertible {
    var equal = 0
    var differ: [String] = []
    var gpsdOnly: [String] = []
    var locdOnly: [String] = []
    var description: String {
      "equal \(equal), differ \(differ.count), gpsd only \(gpsdOnly.count), locd only \(locdOnly.count)"
    }
  }

  /// Equal as gpsd prints them: to the decimals it writes (lat/lon 9, the rest 4 or fewer).
  static func same(_ a: Double, _ b: Double, _ key: String) -> Bool {
    abs(a - b) <= (key == "lat" || key == "lon" ? 1.5e-9 : 1.5e-3)
  }

  /// Plays `receiver`'s log to both and compares: the tallies by member, the times each sent.
  static func compare(_ receiver: Receiver) throws -> (
    tallies: [String: Tally], gpsd: [String: JSON], locd: [String: JSON], sorted: [String]
  ) {
    let dir = LocdProcess.makeDirectory()
    let gpsdPort = freePort()
    let fake = try GpsFake("nmea/" + receiver.log, port: gpsdPort, interval: 0.02, directory: dir, once: true)
    defer { fake.stop() }
    let theirs = try GpsdFaceRig.Capture(
      "/usr/bin/gpspipe", ["-w", "127.0.0.1:\(gpsdPort)"], path: dir + "/gpsd.out")
    let port = freePort()
    let log = Binaries.fixture("nmea/" + receiver.log).path
    let daemon = try LocdProcess(
      arguments: ["--source", "replay:\(log)?speed=4"], directory: dir,
      config: "[Gpsd]\nEnable=yes\nSocket=\(dir)/gpsd.sock\nListenPort=\(port)\n")
    let ours = try GpsdFaceRig.Capture(
      "/usr/bin/gpspipe", ["-w", "127.0.0.1:\(port)"], path: dir + "/locd.out")
    // gpsd has read the whole log when gpsfake ends; locd when its replay is finished and the
    // times gpsd reported have all come (or the deadline fails the test).
    fake.child.wait(timeout: 120)
    _ = try daemon.waitForStatus(timeout: 120) { $0.sourceState() == .known(.finished) }
    let gpsd = lastTPVs(theirs)
    try ours.wait(timeout: 30) { _ in Set(gpsd.keys).isSubset(of: Set(lastTPVs(ours).keys)) }
    ours.stop()
    theirs.stop()
    let locd = lastTPVs(ours)
    var tallies: [String: Tally] = [:]
    let both = gpsd.keys.filter { locd[$0] != nil }.sorted()
    for time in both {
      let (a, b) = (gpsd[time]!, locd[time]!)
      for key in fields {
        var t = tallies[key] ?? Tally()
        switch (a[key]?.number, b[key]?.number) {
        case (nil, nil): continue
        case (let x?, let y?) where same(x, y, key): t.equal += 1
        case (.some, .some): t.differ.append(time)
        case (.some, nil): t.gpsdOnly.append(time)
        case (nil, .some): t.locdOnly.append(time)
        }
        tallies[key] = t
      }
    }
    print("\(receiver.log) (\(receiver.why)): gpsd sent a TPV for \(gpsd.count) times, locd \(locd.count)")
    for key in fields { if let t = tallies[key] { print("  \(key): \(t)") } }
    _ = daemon
    return (tallies, gpsd, locd, both)
  }

  /// Whether gpsd's `key` at `time` is locd's of the cycle before, present or not: gpsd
  /// computes eph, epv, sep, epx and epy at a cycle's first sentence from the DOPs and the sky
  /// it has then (and epc, eps from those), and does not compute them again in that cycle; so
  /// where the receiver sends its DOPs (GSA, and GGA when it is not first) or its GSVs after
  /// that sentence, gpsd's figure is the previous cycle's (none for the first cycle), one
  /// cycle late. locd uses the cycle's own. One more: gpsd's eps at the cycle after the first
  /// sky uses an epx gpsd computed after it had reported that cycle; locd has none there.
  static func previousCycles(
    _ key: String, at time: String, _ r: (gpsd: [String: JSON], locd: [String: JSON], sorted: [String])
  ) -> Bool {
    guard let i = r.sorted.firstIndex(of: time) else { return false }
    let x = r.gpsd[time]?[key]?.number
    guard i > 0 else { return x == nil }
    let before = r.locd[r.sorted[i - 1]]
    switch (x, before?[key]?.number) {
    case (nil, nil): return true
    case (let x?, let y?) where same(x, y, key): return true
    default: break
    }
    if key == "eps", before?["epx"] == nil { return true }
    // epc is the sum of two cycles' epv over the time between them: one cycle late on each.
    if key == "epc", let x, i > 1, let e1 = before?["epv"]?.number,
      let e0 = r.locd[r.sorted[i - 2]]?["epv"]?.number
    {
      return same(x, e0 + e1, key)
    }
    return false
  }

  @Test(arguments: receivers) func everyCycleAndEveryMemberAsGpsdSendsThem(_ receiver: Receiver) throws {
    let (tallies, gpsd, locd, both) = try Self.compare(receiver)
    let r = (gpsd: gpsd, locd: locd, sorted: both)
    // A TPV for every cycle gpsd told, the lost fix's too (mode 1 with the time).
    #expect(Set(gpsd.keys).isSubset(of: Set(locd.keys)), "\(Set(gpsd.keys).subtracting(locd.keys).sorted())")
    for key in Self.fields {
      let t = tallies[key] ?? Tally()
      var left = t.differ + t.gpsdOnly + t.locdOnly
      if receiver.log == "furuno_gl_ga.log", key != "status", key != "ept" {
        // This receiver's GGA says "00" satellites used beside its GNS's 11 and RMC's valid
        // DGPS fix; gpsd 3.22 takes a GGA under three satellites as no fix (mode 1, no
        // position), locd takes the fix the other sentences state (docs/GPSD.md).
        left = left.filter { gpsd[$0]?["mode"] != .int(1) }
      }
      if ["eph", "epv", "sep", "epc", "epx", "epy", "eps"].contains(key) {
        left = left.filter { !Self.previousCycles(key, at: $0, r) }
      }
      if receiver.log == "ublox-zed-f9p-nmea.log", ["epx", "epy", "epv", "epd", "eps", "epc"].contains(key) {
        // gpsd 3.22 takes the F9P's GBS (expected errors, 1 sigma) as epx, epy and epv, and
        // eps, epd and epc from them; locd does not decode GBS and works them out from the
        // DOPs, as gpsd does for a receiver without GBS.
        left = []
      }
      #expect(left.isEmpty, "\(receiver.log) \(key) not as gpsd's at \(left.prefix(4)): \(t)")
    }
    // The lost fix: gpsd and locd both said mode 1 for each cycle of it.
    if receiver.log == "bu353-glonass.log" {
      let lost = gpsd.filter { $0.value["mode"] == .int(1) }.keys.sorted()
      #expect(lost.count >= 9, "\(lost)")
      #expect(lost.allSatisfy { locd[$0]?["mode"] == .int(1) && locd[$0]?["lat"] == nil })
    }
    // DGPS: status 2 on every cycle where gpsd said it.
    if receiver.log == "furuno_gl_ga.log" {
      #expect(gpsd.values.filter { $0["status"] == .int(2) }.count >= 15)
      #expect(tallies["status"]?.equal ?? 0 >= 15, "\(String(describing: tallies["status"]))")
    }
  }
}
