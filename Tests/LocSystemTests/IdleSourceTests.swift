import CLocShim
import Glibc
import LocCore
import Testing

@testable import LocSystem

/// Sources while acquisition is idle, in-process against fake peers: gpsd's watch off and
/// no reconnecting until fixes are wanted; a TCP feed let go and taken back; a live decoder
/// paused in the middle of a line.
@Suite struct IdleSourceTests {
  static let version =
    #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"# + "\n"

  /// Reads from `peer` until a whole line came (5 s at most).
  func line(_ loop: EventLoop, _ server: FakePeerServer, _ peer: Int32) -> String {
    var sent = ""
    pump(loop) {
      sent += server.read(peer)
      return sent.hasSuffix("\n")
    }
    return sent
  }

  @Test func anIdleGpsdClientDoesNotReconnectUntilFixesAreWanted() throws {
    let client = try FakeGpsdClient(nmea: false)
    defer { client.source.stop() }
    let (loop, server, r, source) = (client.loop, client.server, client.recorder, client.source)
    var peer = client.peer
    server.send(peer, Self.version)
    #expect(line(loop, server, peer) == #"?WATCH={"enable":true,"json":true}"# + "\n")

    source.setActive(false)
    #expect(line(loop, server, peer) == #"?WATCH={"enable":false}"# + "\n")
    server.send(peer, #"{"class":"WATCH","enable":false,"json":true}"# + "\n")
    #expect(pump(loop) { counter(source.snapshot, "watchDisables") == 1 })
    #expect(source.snapshot.state == .connected, "an idle connection stays up")

    // gpsd ends the idle connection (it does after 15 min without a command): no retry.
    close(peer)
    #expect(pump(loop) { source.snapshot.state == .idle })
    #expect(source.snapshot.lastError == nil)
    #expect(
      !pump(loop, seconds: 1.5) { server.acceptOne() >= 0 }, "no attempt while idle (backoff starts at 1 s)")
    #expect(r.logs.filter { $0.level <= .warning }.isEmpty, "expected, so not a warning")

    // Fixes wanted: connects at once and watches after the greeting.
    source.setActive(true)
    #expect(
      pump(loop, seconds: 2) {
        peer = server.acceptOne(); return peer >= 0
      })
    server.send(peer, Self.version)
    #expect(line(loop, server, peer) == #"?WATCH={"enable":true,"json":true}"# + "\n")
    #expect(counter(source.snapshot, "connects") == 2)
    #expect(counter(source.snapshot, "reconnectAttempts") == 0)
    close(peer)
  }

  /// A push feed (nmea+tcp) cannot be told to stop sending: while idle its connection is
  /// closed, and nothing else runs (no retry, no read), until fixes are wanted.
  @Test func anIdleTCPFeedIsLetGoAndTakenBackWhenFixesAreWanted() throws {
    let loop = try EventLoop()
    let server = try FakePeerServer()
    let recorder = Recorder()
    let source = NMEATCPSource(
      id: SourceID(0), host: "127.0.0.1", port: server.port, loop: loop, sink: recorder.sink)
    defer { source.stop() }
    source.start()
    var peer: Int32 = -1
    #expect(
      pump(loop) {
        peer = server.acceptOne(); return peer >= 0
      })
    func epoch(_ t: String) -> String {
      sentence("GPRMC,\(t),A,5954.0000,N,01042.0000,E,0.4,0.0,010526,,,A")
        + sentence("GPGGA,\(t),5954.0000,N,01042.0000,E,1,08,0.9,20.5,M,18.0,M,,")
    }
    server.send(peer, epoch("120000.00") + epoch("120001.00"))
    #expect(pump(loop) { recorder.fixes.count == 2 })

    source.setActive(false)
    #expect(pump(loop) { source.snapshot.state == .idle })
    // The peer sees the end of the connection.
    var byte: UInt8 = 0
    var p = pollfd(fd: peer, events: Int16(POLLIN), revents: 0)
    #expect(poll(&p, 1, 2000) == 1)
    #expect(read(peer, &byte, 1) == 0, "closed by locd")
    close(peer)
    #expect(counter(source.snapshot, "releases") == 1)
    #expect(counter(source.snapshot, "disconnects") == 0, "let go on purpose, not lost")
    #expect(source.snapshot.lastError == nil)
    #expect(!pump(loop, seconds: 1.5) { server.acceptOne() >= 0 }, "no attempt while idle")
    #expect(recorder.logs.filter { $0.level <= .warning }.isEmpty, "expected, so not a warning")

    // Fixes wanted: connected again at once, and decoding from the first whole line.
    source.setActive(true)
    #expect(
      pump(loop, seconds: 2) {
        peer = server.acceptOne(); return peer >= 0
      })
    defer { close(peer) }
    server.send(peer, "5954.0000,N*00\r\n" + epoch("120005.00"))
    #expect(pump(loop) { recorder.fixes.count == 3 })
    #expect(recorder.fixes.last?.time.utcSecondOfDay == 43205)
    #expect(counter(source.snapshot, "connects") == 2)
    #expect(counter(source.snapshot, "reconnectAttempts") == 0)
  }

  @Test func aPausedDecoderFinishesItsLineAndResumesAtTheNextOne() throws {
    let loop = try EventLoop()
    var fixes: [Fix] = []
    let live = LiveDecoder(loop: loop, gpsdJSON: false) { fix, _ in fixes.append(fix) }
    defer { live.stop() }
    func rmc(_ t: String) -> String { sentence("GPRMC,\(t),A,5954.0000,N,01042.0000,E,0.4,0.0,010526,,,A") }
    func gga(_ t: String) -> String {
      sentence("GPGGA,\(t),5954.0000,N,01042.0000,E,1,08,0.9,20.5,M,18.0,M,,")
    }
    func feed(_ text: String) { Array(text.utf8).withUnsafeBytes { live.feed($0) } }
    live.begin()
    let third = rmc("120002.00")
    let cut = third.index(third.startIndex, offsetBy: 20)
    feed(rmc("120000.00") + gga("120000.00") + rmc("120001.00") + gga("120001.00") + third[..<cut])
    live.pause()
    // The rest of the line in progress is decoded; what follows is only counted.
    let fourth = rmc("120003.00")
    let cut4 = fourth.index(fourth.startIndex, offsetBy: 30)
    feed(String(third[cut...]) + gga("120002.00") + fourth[..<cut4])
    pump(loop, seconds: 1) { false }
    // Resumed in the middle of an ignored line: it is skipped to its end, not half-decoded.
    live.resume()
    feed(String(fourth[cut4...]) + rmc("120004.00") + gga("120004.00"))
    #expect(pump(loop) { fixes.count == 4 })
    #expect(fixes.map { $0.time.utcSecondOfDay } == [43200, 43201, 43202, 43204])
    #expect(live.ignoredLines == 2)
    #expect(live.ignoredBytes == gga("120002.00").utf8.count + fourth.utf8.count)
    let c = live.counters
    #expect(c.badChecksums == 0 && c.junkBytes == 0 && c.errors == 0, "no half line reached the decoder")
  }
}
