import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// The sky through the real daemon: a replay of a real log (and, in GpsdSourceTests, a real
/// gpsd) gives `locctl sky --json` a sky that is one of gpsd's own for that log, `locctl
/// status` its summary line, and a subscriber `sky` events.
@Suite struct SkyDaemonTests {
  /// A sky in words, to compare skies as sets: each satellite's system, svid, PRN,
  /// elevation, azimuth, signal and used, sorted.
  static func key(_ satellites: [(Int, Int, Int, Double?, Double?, Double?, Bool)]) -> String {
    satellites.map { s in
      func n(_ v: Double?) -> String { v.map { String(Int($0.rounded())) } ?? "-" }
      return "\(s.0)/\(s.1)/\(s.2) \(n(s.3)) \(n(s.4)) \(n(s.5)) \(s.6 ? "used" : "-")"
    }.sorted().joined(separator: ", ")
  }

  /// The key of a sky as locd sends it.
  static func key(_ sky: SkyView) -> String {
    key(sky.satellites.map { ($0.gnssid, $0.svid, $0.prn, $0.elevation, $0.azimuth, $0.signal, $0.used) })
  }

  /// The keys of every SKY with satellites in gpsd's JSON lines at `path` (a `.chk`, or
  /// what gpspipe -w wrote).
  static func gpsdSkies(_ path: String) -> Set<String> {
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    var keys: Set<String> = []
    for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("{\"class\":\"SKY\"") {
      guard case .sky(let sky)? = try? GpsdMessage.parse(Array(line.utf8)), !sky.satellites.isEmpty else {
        continue
      }
      keys.insert(
        key(
          sky.satellites.map {
            ($0.constellation.rawValue, $0.svid, $0.prn, $0.elevation, $0.azimuth, $0.signal, $0.used)
          })
      )
    }
    return keys
  }

  @Test func aReplayShowsGpsdsSky() throws {
    let log = Binaries.fixture("nmea/haicom-305N.log").path
    let expected = Self.gpsdSkies(log + ".chk")
    #expect(expected.count > 10, "gpsd's skies of the log")
    let daemon = try LocdProcess(arguments: ["--source", "replay:\(log)?speed=4&loop=1"])
    let subscriber = try RawClient(path: daemon.socketPath)
    try subscriber.handshake()
    try subscriber.send(.subscribe([.sky]), id: .number(1))
    _ = try subscriber.reply(to: .number(1), .subscribe([.sky]))

    // Two events: each is one of gpsd's skies, and they come at least a second apart.
    var events: [EventMessage] = []
    let deadline = Date().addingTimeInterval(30)
    while events.count < 2, Date() < deadline {
      guard case .event(let e) = try subscriber.readMessage(timeout: 30) else { continue }
      guard case .sky = e.data else { continue }
      events.append(e)
    }
    try #require(events.count == 2, "two sky events")
    for e in events {
      guard case .sky(let sky) = e.data else { continue }
      #expect(sky.source.hasPrefix("replay:"))
      #expect(expected.contains(Self.key(sky)), "\(Self.key(sky)) is not one of gpsd's skies")
    }
    #expect(events[1].time.duration(since: events[0].time) >= .milliseconds(990))

    let r = try daemon.locctl(["sky", "--json"])
    #expect(r.status == 0, "\(r.stderr)")
    let result: SkyResult = try decodeOutput(r.stdout)
    try #require(result.skies.count == 1)
    let sky = result.skies[0]
    #expect(expected.contains(Self.key(sky)), "\(Self.key(sky)) is not one of gpsd's skies")
    #expect(sky.summary.inView == sky.satellites.count)
    #expect(sky.summary.used == sky.satellites.filter(\.used).count)

    // The table: a heading and one row per satellite, used ones saying so.
    let table = try daemon.locctl(["sky"])
    #expect(table.status == 0)
    let rows = table.stdout.split(separator: "\n").filter { $0.hasPrefix("GPS ") }
    #expect(rows.count >= 4, "\(table.stdout)")
    #expect(rows.contains { $0.hasSuffix("yes") }, "\(table.stdout)")
    // The heading's time is a wall time in the zone in effect, as status shows times, not UTC ISO.
    let heading = String(table.stdout.split(separator: "\n").first ?? "")
    #expect(heading.contains(#/  \d\d:\d\d:\d\d [A-Z+\-0-9:]+  \d+ of \d+ used/#), "\(heading)")
    #expect(!heading.contains(#/\d{4}-\d\d-\d\dT/#), "\(heading)")

    // The plot: north up, a mark per satellite.
    let plot = try daemon.locctl(["sky", "--plot"])
    #expect(plot.status == 0)
    #expect(plot.stdout.contains("N") && plot.stdout.contains("* used"), "\(plot.stdout)")

    let status = try daemon.locctl(["status"])
    let line = status.stdout.split(separator: "\n").first { $0.hasPrefix("Satellites:") }
    #expect(line?.contains(" used, best signal ") == true, "\(status.stdout)")
    let view = try daemon.status()
    #expect(view.satellites.map { $0.inView > 0 && $0.used > 0 } == true)
  }

  @Test func noSkyBeforeAnySatellites() throws {
    // Nothing listens on this port: no sky, no satellites line.
    let daemon = try LocdProcess(arguments: ["--source", "gpsd://127.0.0.1:\(freePort())"])
    let r = try daemon.locctl(["sky", "--json"])
    #expect(r.status == 0)
    #expect(try decodeOutput(r.stdout, as: SkyResult.self).skies.isEmpty)
    #expect(try daemon.locctl(["sky"]).stdout.contains("no source has reported a sky yet"))
    #expect(!(try daemon.locctl(["status"]).stdout.contains("Satellites:")))
    #expect(try daemon.status().satellites == nil)
  }
}
