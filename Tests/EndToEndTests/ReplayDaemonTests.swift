import Foundation
import Glibc
import LocCore
import Testing

/// The built locd on a replay of a real receiver's log, queried with the built locctl.
@Suite struct ReplayDaemonTests {
  static let dunedin = "replay:\(Binaries.fixture("nmea/ublox-zed-f9p-nmea.log").path)?speed=4&loop=1"

  @Test func statusReportsTheLogsPositionAndARestartServesItCachedAtOnce() throws {
    let dir = LocdProcess.makeDirectory()
    var daemon = try LocdProcess(arguments: ["--source", Self.dunedin], directory: dir)
    let s = try daemon.waitForStatus { $0["position"]?["tier"]?.string == "fix" }
    // The u-blox ZED-F9P log was recorded at 45.8776 S 170.5001 E (see PROVENANCE.md).
    let lat = try #require(s["position"]?["lat"]?.number)
    let lon = try #require(s["position"]?["lon"]?.number)
    #expect(abs(lat - -45.8776) < 0.001 && abs(lon - 170.5001) < 0.001)
    #expect(s["fix"]?["mode"]?.number == 3)
    #expect((s["fix"]?["satellitesUsed"]?.number ?? 0) > 4)
    #expect(s["sources"]?[0]?["state"]?.string == "connected")
    #expect((s["sources"]?[0]?["counters"]?["sentences"]?.number ?? 0) > 10)
    #expect(s["sun"]?["sunrise"]?.string?.hasSuffix("Z") == true)
    // The zone comes from the position, through the boundary data.
    #expect(s["timezone"]?["id"]?.string == "Pacific/Auckland")
    #expect(s["timezone"]?["origin"]?.string == "position")
    // Privacy: no coordinates in the log above debug level.
    #expect(!daemon.log.split(separator: "\n").contains { !$0.hasPrefix("<7>") && $0.contains("45.87") })
    #expect(daemon.stop() == 0)

    // Restart with no working source: the last known position answers at once, stale.
    daemon = try LocdProcess(arguments: ["--source", "replay:/nonexistent.log"], directory: dir)
    let cached = try daemon.status()
    #expect(cached["position"]?["tier"]?.string == "cached")
    #expect(abs((cached["position"]?["lat"]?.number ?? 0) - -45.8776) < 0.001)
    #expect((cached["position"]?["age"]?.number ?? -1) >= 0)
    #expect(cached["position"]?["reason"]?.string?.contains("nonexistent.log") == true)
    #expect(cached["sources"]?[0]?["state"]?.string == "failed")
  }

  @Test func watchStreamsEventsAsJSONLines() throws {
    let daemon = try LocdProcess(arguments: ["--source", Self.dunedin])
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    let watcher = try Child(
      Binaries.locctl.path, ["--socket", daemon.socketPath, "watch", "--json"], stdoutFD: fds[1])
    close(fds[1])
    defer {
      kill(watcher.pid, SIGINT)
      watcher.wait()
      close(fds[0])
    }
    var text = ""
    var events: [JSON] = []
    let deadline = Date().addingTimeInterval(15)
    while Date() < deadline,
      events.filter({ $0["event"]?.string == "location" && $0["data"]?["fix"]?.isNull == false }).count < 3
    {
      var p = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, 500) > 0 else { continue }
      var buffer = [UInt8](repeating: 0, count: 65536)
      let n = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
      guard n > 0 else { break }
      text += String(decoding: buffer[0..<n], as: UTF8.self)
      while let nl = text.firstIndex(of: "\n") {
        events.append(try JSON.parse(String(text[..<nl])))
        text = String(text[text.index(after: nl)...])
      }
    }
    let fixes = events.filter { $0["event"]?.string == "location" && $0["data"]?["fix"]?.isNull == false }
    #expect(fixes.count >= 3)
    for e in fixes {
      #expect(e["type"]?.string == "event")
      #expect(e["time"]?.string.flatMap { Instant(iso8601: $0) } != nil)
      #expect(e["data"]?["fix"]?["time"]?.string?.hasPrefix("2019-04-12T") == true)
      #expect(e["data"]?["position"]?["tier"]?.string == "fix")
    }
    let times = fixes.compactMap { $0["data"]?["fix"]?["time"]?.string }
    #expect(Set(times).count == times.count)
  }
}
