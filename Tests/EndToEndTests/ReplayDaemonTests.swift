import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// The built locd on a replay of a real receiver's log, queried with the built locctl.
@Suite struct ReplayDaemonTests {
  static let dunedin = "replay:\(Binaries.fixture("nmea/ublox-zed-f9p-nmea.log").path)?speed=4&loop=1"

  @Test func statusReportsTheLogsPositionAndARestartServesItCachedAtOnce() throws {
    let dir = LocdProcess.makeDirectory()
    var daemon = try LocdProcess(arguments: ["--source", Self.dunedin], directory: dir)
    let s = try daemon.waitForStatus { $0.position.tier == .fix }
    // The u-blox ZED-F9P log was recorded at 45.8776 S 170.5001 E (see PROVENANCE.md).
    let lat = try #require(s.position.position?.coordinate.latitude.value)
    let lon = try #require(s.position.position?.coordinate.longitude.value)
    #expect(abs(lat - -45.8776) < 0.001 && abs(lon - 170.5001) < 0.001)
    #expect(s.fix?.mode == .threeD)
    #expect((s.fix?.satellitesUsed ?? 0) > 4)
    #expect(s.sourceState() == .known(.connected))
    #expect((s.counters()["sentences"] ?? 0) > 10)
    #expect(s.sun?.sunrise != nil)
    // The zone comes from the position, through the boundary data.
    #expect(s.timezone.zone.id == "Pacific/Auckland")
    #expect(s.timezone.zone.origin == .known(.position))
    // Privacy: no coordinates in the log above debug level.
    #expect(!daemon.log.split(separator: "\n").contains { !$0.hasPrefix("<7>") && $0.contains("45.87") })
    #expect(daemon.stop() == 0)

    // Restart with no working source: the last known position answers at once, stale.
    daemon = try LocdProcess(arguments: ["--source", "replay:/nonexistent.log"], directory: dir)
    let cached = try daemon.status()
    #expect(cached.position.tier == .cached)
    #expect(abs((cached.position.position?.coordinate.latitude.value ?? 0) - -45.8776) < 0.001)
    #expect((cached.position.age ?? .seconds(-1)) >= .zero)
    #expect(cached.position.reason?.contains("nonexistent.log") == true)
    #expect(cached.sourceState() == .known(.failed))
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
    var events: [EventMessage] = []
    // `location` events that come from a fix.
    func fixes() -> [(EventMessage, LocationEvent, FixView)] {
      events.compactMap { e in
        guard case .location(let l) = e.data, let fix = l.fix else { return nil }
        return (e, l, fix)
      }
    }
    let deadline = Date().addingTimeInterval(15)
    while Date() < deadline, fixes().count < 3 {
      var p = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, 500) > 0 else { continue }
      var buffer = [UInt8](repeating: 0, count: 65536)
      let n = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
      guard n > 0 else { break }
      text += String(decoding: buffer[0..<n], as: UTF8.self)
      while let nl = text.firstIndex(of: "\n") {
        // Each line is a whole event message, as the protocol defines it.
        guard case .event(let e) = try ServerMessage.decode(Array(text[..<nl].utf8)) else {
          throw HarnessError("not an event: \(text[..<nl])")
        }
        events.append(e)
        text = String(text[text.index(after: nl)...])
      }
    }
    let located = fixes()
    #expect(located.count >= 3)
    // The log was recorded on 2019-04-12 (PROVENANCE.md); events are stamped now.
    let recorded = try #require(CivilDate(year: 2019, month: 4, day: 12))
    for (e, l, fix) in located {
      #expect(e.time.utcDate > recorded)
      #expect(fix.time.utcDate == recorded)
      #expect(l.position.tier == .fix)
    }
    let times = located.map(\.2.time)
    #expect(Set(times).count == times.count)
  }
}
