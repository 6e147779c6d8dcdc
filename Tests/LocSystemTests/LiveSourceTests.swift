import CLocShim
import Glibc
import LocCore
import Testing

@testable import LocSystem

/// Live sources driven in-process against a fake peer: the gpsd protocol, the clock a live
/// decoder dates with, reconnection.
@Suite struct LiveSourceTests {
  static let version =
    #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"# + "\n"

  @Test func gpsdWatchesAfterTheGreetingMergesReportsAndTogglesTheWatch() throws {
    let client = try FakeGpsdClient(nmea: false)
    defer { client.source.stop() }
    let (loop, server, r, source) = (client.loop, client.server, client.recorder, client.source)
    var peer = client.peer
    #expect(pump(loop) { source.snapshot.state == .connected })
    #expect(r.updates.last?.restarted == true)
    #expect(server.read(peer) == "", "nothing is sent before gpsd's greeting")

    server.send(peer, Self.version)
    var sent = ""
    #expect(
      pump(loop) {
        sent += server.read(peer); return sent.hasSuffix("\n")
      })
    #expect(sent == #"?WATCH={"enable":true,"json":true}"# + "\n")
    #expect(source.release == "3.22")

    let t0 = "2024-05-01T12:00:00.000Z"
    let t1 = "2024-05-01T12:00:01.000Z"
    server.send(
      peer,
      [
        #"{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0}"#,
        #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyUSB0","driver":"NMEA0183"}]}"#,
        #"{"class":"TPV","device":"/dev/ttyUSB0","mode":2,"time":"\#(t0)","lat":59.9,"lon":10.7}"#,
        #"{"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":"\#(t0)","lat":59.9,"lon":10.7,"altMSL":20.5}"#,
        #"{"class":"SKY","device":"/dev/ttyUSB0","nSat":12,"uSat":8,"hdop":0.9}"#,
        #"{"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":"\#(t1)","lat":59.90001,"lon":10.7,"altMSL":20.6}"#,
      ].joined(separator: "\n") + "\n")
    // The two reports of 12:00:00 leave as one, the last, when 12:00:01 begins ...
    #expect(pump(loop) { r.fixes.count == 1 })
    #expect(r.fixes[0].time == Instant(iso8601: t0))
    #expect(r.fixes[0].mode == .threeD)
    #expect(r.fixes[0].altitudeMSL == Meters(20.5))
    // ... and 12:00:01 when gpsd pauses.
    #expect(pump(loop) { r.fixes.count == 2 })
    #expect(r.fixes[1].time == Instant(iso8601: t1))
    #expect(r.fixes[1].satellitesUsed == 8)
    #expect(source.watching)
    #expect(counter(source.snapshot, "watching") == 1)
    #expect(counter(source.snapshot, "devices") == 1)
    #expect(counter(source.snapshot, "gpsdReports") == 7)

    // Off, for an idle daemon: gpsd may power the receiver down.
    source.setWatching(false)
    sent = ""
    #expect(
      pump(loop) {
        sent += server.read(peer); return sent.hasSuffix("\n")
      })
    #expect(sent == #"?WATCH={"enable":false}"# + "\n")
    server.send(peer, #"{"class":"WATCH","enable":false,"json":true}"# + "\n")
    #expect(pump(loop) { !source.watching })
    #expect(counter(source.snapshot, "watching") == 0)
    server.send(peer, #"{"class":"DEVICE","path":"/dev/ttyUSB0","activated":0}"# + "\n")
    #expect(pump(loop) { counter(source.snapshot, "devices") == 0 })

    // gpsd goes away and comes back (after the first backoff step, 1 s): the choice holds.
    close(peer)
    #expect(pump(loop) { if case .reconnecting = source.snapshot.state { true } else { false } })
    #expect(source.snapshot.lastError?.contains("closed by 127.0.0.1:") == true)
    peer = -1
    #expect(
      pump(loop, seconds: 4) {
        peer = server.acceptOne(); return peer >= 0
      })
    #expect(pump(loop) { source.snapshot.state == .connected })
    let reports = counter(source.snapshot, "gpsdReports")!
    server.send(peer, Self.version)
    #expect(pump(loop) { counter(source.snapshot, "gpsdReports") == reports + 1 })
    #expect(server.read(peer) == "", "the watch stays off")
    source.setWatching(true)
    sent = ""
    #expect(
      pump(loop) {
        sent += server.read(peer); return sent.hasSuffix("\n")
      })
    #expect(sent == #"?WATCH={"enable":true,"json":true}"# + "\n")

    let s = source.snapshot
    #expect(counter(s, "connects") == 2)
    #expect(counter(s, "disconnects") == 1)
    #expect(counter(s, "reconnectAttempts") == 1)
    #expect(r.logs.filter { $0.level == .warning }.count == 1)
    #expect(r.updates.filter { $0.restarted }.count == 2)
    close(peer)
  }

  @Test func gpsdRawNMEAWatchAsksForSentencesAndDecodesThem() throws {
    let client = try FakeGpsdClient(nmea: true)
    defer { client.source.stop() }
    let (loop, server, r, source) = (client.loop, client.server, client.recorder, client.source)
    let peer = client.peer
    server.send(peer, Self.version)
    var sent = ""
    #expect(
      pump(loop) {
        sent += server.read(peer); return sent.hasSuffix("\n")
      })
    #expect(sent == #"?WATCH={"enable":true,"json":false,"nmea":true}"# + "\n")
    server.send(peer, sentence("GPRMC,120000.00,A,5954.000,N,01042.000,E,0.0,0.0,010524,,,A"))
    #expect(pump(loop) { r.fixes.count == 1 })
    #expect(r.fixes[0].time == Instant(iso8601: "2024-05-01T12:00:00.000Z"))
    #expect(counter(source.snapshot, "sentences") == 1)
    close(peer)
  }

  @Test func gpsdsErrorIsReportedAtOnceAsTheLastError() throws {
    let client = try FakeGpsdClient(nmea: false)
    defer { client.source.stop() }
    let (loop, server, r, source) = (client.loop, client.server, client.recorder, client.source)
    let peer = client.peer
    defer { close(peer) }
    #expect(pump(loop) { source.snapshot.state == .connected })
    server.send(peer, Self.version)
    server.send(peer, #"{"class":"ERROR","message":"Unrecognized request '?WATCH'"}"# + "\n")
    // Told without waiting for another change: status shows it (the engine's `error` fault).
    #expect(pump(loop) { r.updates.last?.snapshot.lastError == "gpsd: Unrecognized request '?WATCH'" })
    #expect(r.updates.last?.snapshot.state == .connected)
    #expect(
      r.logs.contains {
        $0.level == .warning && $0.message.hasSuffix("gpsd says: Unrecognized request '?WATCH'")
      })
  }

  @Test func aLiveStreamIsDatedByTheLoopsClock() throws {
    // A GGA carries no date: a live source dates it by its clock, from the first sentence.
    // The peer listens on 127.0.0.1 only; where `localhost` is ::1 first (a stock Debian 12),
    // the source must fall through to the next address.
    let loop = try EventLoop()
    let server = try FakePeerServer()
    let r = Recorder()
    let source = NMEATCPSource(
      id: SourceID(0), host: "localhost", port: server.port, loop: loop, sink: r.sink)
    source.start()
    defer { source.stop() }
    var peer: Int32 = -1
    #expect(
      pump(loop) {
        peer = server.acceptOne(); return peer >= 0
      })
    let now = loop.now
    let t = (now.microsecondsSinceEpoch / 1_000_000 - 5) % 86_400
    let hhmmss = String(format: t / 3600, t / 60 % 60, t % 60)
    server.send(peer, sentence("GPGGA,\(hhmmss).00,5954.000,N,01042.000,E,1,08,0.9,20.5,M,18.0,M,,"))
    #expect(pump(loop) { r.fixes.count == 1 })
    #expect(abs(r.fixes[0].time.seconds(since: now) + 5) < 1)
    #expect(r.fixes[0].mode == .threeD)
    #expect(counter(source.snapshot, "undatedEpochs") == 0)
    // The peer hangs up mid-line: the half line is counted, the rest kept.
    let before = counter(source.snapshot, "bytes")!
    server.send(peer, "$GPGGA,1200")
    #expect(pump(loop) { counter(source.snapshot, "bytes") == before + 11 })
    close(peer)
    #expect(pump(loop) { counter(source.snapshot, "disconnects") == 1 })
    #expect(counter(source.snapshot, "unterminatedLines") == 1)
    #expect(counter(source.snapshot, "fixes") == 1)
  }

  @Test func resolvesLiteralAddressesAndNames() throws {
    let loop = try EventLoop()
    let resolver = HostResolver(loop: loop)
    var got: [String] = []
    for host in ["::1", "127.0.0.1", "localhost"] {
      var outcome: HostResolver.Outcome?
      resolver.resolve(host: host, port: 2947, socketType: Int32(SOCK_STREAM.rawValue), passive: false) {
        outcome = $0
      }
      #expect(pump(loop) { outcome != nil })
      if case .success(let list) = outcome { got.append(list[0].description) }
    }
    #expect(got.count == 3)
    #expect(got.prefix(2) == ["[::1]:2947", "127.0.0.1:2947"])
    // `localhost` is what /etc/hosts makes it: 127.0.0.1 alone here, ::1 first on a stock
    // Debian 12 (its hosts file has both, and getaddrinfo prefers IPv6, RFC 6724). Either way
    // the first answer is a loopback address.
    #expect(["[::1]:2947", "127.0.0.1:2947"].contains(got.last ?? ""), "\(got)")
    #expect(SocketAddress.isNumeric("fe80::1"))
    #expect(!SocketAddress.isNumeric("gps.local"))
    // A cancelled lookup never answers.
    var called = false
    resolver.resolve(host: "localhost", port: 1, socketType: Int32(SOCK_STREAM.rawValue), passive: false) {
      _ in
      called = true
    }
    resolver.cancel()
    pump(loop, seconds: 0.2) { false }
    #expect(!called)
  }
}

extension String {
  /// `hhmmss` from three numbers.
  fileprivate init(format h: Int64, _ m: Int64, _ s: Int64) {
    func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
    self = two(h) + two(m) + two(s)
  }
}
