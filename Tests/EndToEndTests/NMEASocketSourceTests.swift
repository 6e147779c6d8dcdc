import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// `nmea+tcp://`, `nmea+tcp-listen://` and `nmea+udp://` against real sockets into the
/// real locd, checked with `locctl status --json` counters and `locctl watch --json`.
@Suite struct NMEASocketSourceTests {
  /// What `locctl decode --json` makes of a fixture: the fixes with a position.
  static func decoded(_ fixture: String) throws -> [JSON] {
    let r = try run(Binaries.locctl, ["decode", "--json", Binaries.fixture(fixture).path])
    guard r.status == 0 else { throw HarnessError("decode: \(r.stderr)") }
    return try r.stdout.split(separator: "\n").map { try JSON.parse(String($0)) }.filter {
      ($0["mode"]?.number ?? 0) >= 2
    }
  }

  @Test func tcpClientDecodesLikeLocctlDecodeAndComesBackAfterAMidLineHangUp() throws {
    let server = try TestServer()
    let daemon = try LocdProcess(arguments: ["--source", "nmea+tcp://127.0.0.1:\(server.port)"])
    let watcher = try FixWatcher(daemon)
    try watcher.waitUntilSubscribed()
    var peer = try server.accept()
    // A slowly moving RTK receiver at 10 Hz (2020): every fix as offline decoding gives it.
    let expected = try Self.decoded("nmea/nmea-rtk.log")
    try writeAll(peer, Array(try Data(contentsOf: Binaries.fixture("nmea/nmea-rtk.log"))))
    // Every fix reaches the engine, which accepts or rejects it (FixAcceptance: e.g. a less
    // accurate fix inside the current accuracy circle); each accepted one is pushed.
    // Counters and the engine's verdicts come from the same loop, so once the source has
    // counted every fix, the rejections are final too.
    _ = try daemon.waitForCounters { $0["fixes"] == expected.count }
    let status = try daemon.status()
    let rejected = status.rejectedFixes.reduce(0) { $0 + $1.value }
    let got = try watcher.wait { $0.count >= expected.count - rejected }
    #expect(got.count == expected.count - rejected)
    let byTime = Dictionary(expected.map { ($0["time"]?.string ?? "", $0) }, uniquingKeysWith: { a, _ in a })
    for a in got {
      let b = try #require(
        byTime[a.time.iso8601(fractionDigits: 3)], "\(a.json.serialized) was not decoded offline")
      #expect(
        a.coordinate?.latitude.value == b["lat"]?.number && a.coordinate?.longitude.value == b["lon"]?.number,
        "\(a.json.serialized) vs \(b.serialized)")
      #expect(b["mode"] == .int(a.mode.rawValue))
    }
    #expect(Set(got.compactMap { $0.coordinate?.latitude.value }).count > 50, "the position changes")

    // The peer hangs up in the middle of a sentence: only that half line is lost.
    try writeAll(peer, "$GPGGA,235959.00,4134.5")
    close(peer)
    var c = try daemon.waitForCounters { $0["disconnects"] == 1 }
    #expect(c["unterminatedLines"] == 1)
    #expect(c["badChecksums"] == 1, "the half line has no checksum")
    #expect(try daemon.status().sourceState() == .known(.reconnecting))
    // locd comes back (first backoff step, 1 s) and goes on with the new stream.
    peer = try server.accept()
    try writeAll(peer, epochs(3))
    try watcher.wait { $0.count >= got.count + 3 }
    c = try daemon.waitForCounters { $0["connects"] == 2 }
    #expect(c["reconnectAttempts"] == 1)
    #expect(try daemon.status().sourceState() == .known(.connected))
    #expect(
      daemon.log.components(separatedBy: "reconnecting (backoff").count - 1 == 1, "one log line per outage")
    close(peer)
  }

  /// Whether this machine has IPv6 loopback (a socket can bind ::1); containers and some CI
  /// machines run with IPv6 disabled.
  static let ipv6Loopback: Bool = {
    let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var addr = sockaddr_in6()
    addr.sin6_family = sa_family_t(AF_INET6)
    addr.sin6_addr = in6addr_loopback
    return withUnsafePointer(to: &addr) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
      }
    } == 0
  }()

  @Test(.enabled(if: ipv6Loopback, "no IPv6 loopback on this machine"))
  func ipv6ClientAndDatagramsWithOneOrManyLinesOrNoNewline() throws {
    let server = try TestServer(host: "::1")
    let udpPort = freePort(datagram: true)
    let daemon = try LocdProcess(arguments: [
      "--source", "nmea+tcp://[::1]:\(server.port)", "--source", "nmea+udp://[::1]:\(udpPort)",
    ])
    let peer = try server.accept()
    defer { close(peer) }
    try writeAll(peer, epochs(3, endingSecondsAgo: 20))
    var c = try daemon.waitForCounters(source: 0) { $0["fixes"] == 3 }
    #expect(c["connects"] == 1)

    _ = try daemon.waitForStatus { $0.sourceState(1) == .known(.connected) }
    let lines = sentences(epochs(5, endingSecondsAgo: 5))
    // One RMC without its CR LF, then a whole cycle, then two cycles in one datagram.
    try sendDatagram("::1", udpPort, Array(lines[0].utf8.dropLast(2)))
    try sendDatagram("::1", udpPort, Array((lines[2] + lines[3]).utf8))
    try sendDatagram("::1", udpPort, Array(lines[4...7].joined().utf8))
    c = try daemon.waitForCounters(source: 1) { $0["datagrams"] == 3 && $0["fixes"] == 4 }
    #expect(c["sentences"] == 7)
    #expect(c["badChecksums"] == 0)
    #expect(c["truncatedLines"] == 0)
    #expect(c["junkBytes"] == 0)
  }

  @Test func listenerOnLoopbackServesFourPeersAndRefusesTheFifth() throws {
    let port = freePort()
    let daemon = try LocdProcess(arguments: ["--source", "nmea+tcp-listen://:\(port)"])
    let status = try daemon.waitForStatus { $0.sourceState() == .known(.connected) }
    #expect(status.sources.first?.uri == "nmea+tcp-listen://127.0.0.1:\(port)")
    let peers = try (0..<4).map { _ in try connectTCP("127.0.0.1", port) }
    try daemon.waitForCounters { $0["peers"] == 4 }
    let fifth = try connectTCP("127.0.0.1", port)
    var p = pollfd(fd: fifth, events: Int16(POLLIN), revents: 0)
    #expect(poll(&p, 1, 5000) == 1)
    var byte: UInt8 = 0
    #expect(read(fifth, &byte, 1) == 0, "the fifth is closed at once")
    close(fifth)
    try daemon.waitForCounters { $0["refusedPeers"] == 1 }
    // Each peer has its own decoder: interleaved writes never mix lines.
    let streams = (0..<4).map { epochs(2, endingSecondsAgo: Double(10 * $0 + 1), firstIndex: 10 * $0) }
    for half in 0..<2 {
      for (i, peer) in peers.enumerated() {
        let text = streams[i]
        let middle = text.index(text.startIndex, offsetBy: text.count / 2 + 3)  // inside a sentence
        try writeAll(peer, String(half == 0 ? text[..<middle] : text[middle...]))
      }
    }
    var c = try daemon.waitForCounters { $0["fixes"] == 8 }
    #expect(c["truncatedLines"] == 0)
    for peer in peers { close(peer) }
    c = try daemon.waitForCounters { $0["disconnects"] == 4 && $0["peers"] == 0 }
    #expect(c["fixes"] == 8, "the counts of peers that left are kept")
    #expect(c["accepted"] == 4)
  }
}

/// Bad input through a listening source, one kind per test: each is counted, none crashes,
/// none grows memory, and good input afterwards still gives fixes.
@Suite struct BadSourceInputTests {
  /// A daemon listening on a fresh loopback port (with `config` as its locd.conf), with one
  /// peer connected.
  static func listening(config: String? = nil) throws -> (LocdProcess, Int32) {
    let port = freePort()
    let daemon = try LocdProcess(
      arguments: ["--source", "nmea+tcp-listen://127.0.0.1:\(port)"], config: config)
    _ = try daemon.waitForStatus { $0.sourceState() == .known(.connected) }
    let peer = try connectTCP("127.0.0.1", port)
    try daemon.waitForCounters { $0["peers"] == 1 }
    return (daemon, peer)
  }

  @Test func wrongChecksums() throws {
    let (daemon, peer) = try Self.listening()
    defer { close(peer) }
    // Spoil every GGA's checksum: the RMCs still give each cycle a (2D) fix.
    let text = sentences(epochs(5)).map { line -> String in
      guard line.hasPrefix("$GPGGA") else { return line }
      let body = line.dropLast(4)  // "hh\r\n"
      return body + (line.hasSuffix("00\r\n") ? "01" : "00") + "\r\n"
    }.joined()
    try writeAll(peer, text)
    let c = try daemon.waitForCounters { $0["fixes"] == 5 && $0["sentences"] == 5 }
    #expect(c["badChecksums"] == 5)
    #expect(c["errors"] == 0)
  }

  @Test func truncatedSentences() throws {
    let (daemon, peer) = try Self.listening()
    defer { close(peer) }
    // Each cycle is preceded by a sentence cut off by the next `$`, as after a lost byte run.
    let cycles = epochs(3).components(separatedBy: "$GPRMC").dropFirst().map { "$GPRMC" + $0 }
    try writeAll(peer, cycles.map { "$GPGGA,120000.00,5954.0" + $0 }.joined())
    let c = try daemon.waitForCounters { $0["fixes"] == 3 }
    #expect(c["truncatedLines"] == 3)
    #expect(c["badChecksums"] == 0)
    #expect(c["sentences"] == 6)
  }

  @Test func tenMebibytesOfRandomBytes() throws {
    let (daemon, peer) = try Self.listening()
    defer { close(peer) }
    let before = residentKiB(daemon.pid)
    var generator = SplitMix64(seed: 0x10CD)
    let chunk = 1 << 20
    for _ in 0..<10 {
      try writeAll(peer, (0..<chunk).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
    }
    try writeAll(peer, "\r\n" + epochs(3))
    let c = try daemon.waitForCounters(timeout: 30) {
      $0["bytes"] ?? 0 >= 10 * chunk && $0["fixes"] ?? 0 >= 3
    }
    #expect(c["junkBytes"] ?? 0 > 1_000_000)
    #expect(c["truncatedLines"] ?? 0 > 10_000)
    let after = residentKiB(daemon.pid)
    #expect(after - before < 2048, "RSS \(before) KiB before, \(after) KiB after 10 MiB of junk")
  }

  @Test func oneMebibyteLineWithoutANewline() throws {
    let (daemon, peer) = try Self.listening()
    defer { close(peer) }
    let before = residentKiB(daemon.pid)
    try writeAll(peer, "$GPGGA," + String(repeating: "7", count: 1 << 20))
    try writeAll(peer, epochs(2))
    let c = try daemon.waitForCounters { $0["fixes"] == 2 }
    #expect(c["overlongLines"] == 1)
    #expect(c["sentences"] == 4)
    let after = residentKiB(daemon.pid)
    // Holding the line would cost at least 1 MiB; allocator noise is a few hundred KiB.
    #expect(after - before < 1024, "RSS \(before) KiB before, \(after) KiB after a 1 MiB line")
  }

  @Test func timeGoingBackwards() throws {
    let (daemon, peer) = try Self.listening()
    defer { close(peer) }
    let watcher = try FixWatcher(daemon)
    try watcher.waitUntilSubscribed()
    let now = Date().timeIntervalSince1970.rounded(.down)
    // The receiver's clock jumps back 32 s, then past where it was.
    let seconds: [Double] = [-30, -29, -28, -60, -59, -27]
    let cycles = seconds.enumerated().map { epoch(at: Date(timeIntervalSince1970: now + $1), index: $0) }
    try writeAll(peer, cycles.joined())
    let c = try daemon.waitForCounters { $0["fixes"] == 6 }
    #expect(c["timeWentBackwards"] == 1)
    // locd does not take the older fixes as its position.
    let last = ISO8601DateFormatter.withMilliseconds.string(from: Date(timeIntervalSince1970: now - 27))
    let fixes = try watcher.wait { $0.last?.time.iso8601(fractionDigits: 3) == last }
    let times = fixes.map { $0.time.iso8601(fractionDigits: 3) }
    let expected = [-30.0, -29, -28, -27].map {
      ISO8601DateFormatter.withMilliseconds.string(from: Date(timeIntervalSince1970: now + $0))
    }
    #expect(times.suffix(4) == expected[...])
    #expect(try daemon.status().fix?.time.iso8601(fractionDigits: 3) == last)
  }

  @Test func silentForALongTime() throws {
    let (daemon, peer) = try Self.listening()
    defer { close(peer) }
    try writeAll(peer, epochs(2, endingSecondsAgo: 20))
    try daemon.waitForCounters { $0["fixes"] == 2 }
    // Nothing for over 10 s: one silence, counted and logged; the peer is kept.
    var c = try daemon.waitForCounters(timeout: 15) { $0["silences"] == 1 }
    #expect(c["peers"] == 1)
    #expect(try daemon.status().sourceState() == .known(.connected))
    #expect(daemon.log.contains("sent nothing for 10 s"))
    try writeAll(peer, epochs(2, endingSecondsAgo: 1, firstIndex: 2))
    c = try daemon.waitForCounters { $0["fixes"] == 4 }
    #expect(c["silences"] == 1)
  }
}

/// A small deterministic generator (SplitMix64, Steele, Lea and Flood 2014): junk bytes
/// here, seeded jitter in RegionDaemonTests (a RandomNumberGenerator, for `random(in:using:)`).
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

extension ISO8601DateFormatter {
  /// `2024-05-01T12:00:00.000Z`, as locd writes times (a new formatter each time: a shared
  /// one is not Sendable).
  static var withMilliseconds: ISO8601DateFormatter {
    let f = ISO8601DateFormatter()
    f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return f
  }
}
