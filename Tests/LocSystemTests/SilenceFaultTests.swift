import Glibc
import LocCore
import Testing

@testable import LocSystem

/// A live source reports its silence as the `silent` fault when it begins and reports it
/// gone when bytes come again, from inside its decoder, on a real loop (decision 0047).
@Suite struct SilenceFaultTests {
  /// The latest report's fault, if any report came.
  static func fault(_ r: Recorder) -> SourceFault?? { r.updates.last.map(\.snapshot.fault) }

  @Test func anNMEAOverTCPFeedIsSilentUntilItSendsAgain() throws {
    let loop = try EventLoop()
    let server = try FakePeerServer()
    let r = Recorder()
    let source = NMEATCPSource(
      id: SourceID(0), host: "127.0.0.1", port: server.port, loop: loop, sink: r.sink)
    source.start()
    defer { source.stop() }
    var peer: Int32 = -1
    #expect(
      pump(loop) {
        peer = server.acceptOne(); return peer >= 0
      })
    defer { close(peer) }
    server.send(peer, sentence("GPRMC,120000.00,A,5954.000,N,01042.000,E,0.0,0.0,010524,,,A"))
    #expect(pump(loop) { counter(source.snapshot, "sentences") == 1 })
    let before = r.updates.count
    #expect(pump(loop, seconds: 30) { Self.fault(r)??.kind == .silent })
    #expect(r.updates.count == before + 1, "one report when the silence begins")
    #expect(r.updates.last?.snapshot.state == .connected)
    #expect(r.updates.last?.snapshot.fault?.reason == "nothing came in the 10 s before")
    #expect(counter(source.snapshot, "silences") == 1)
    server.send(peer, sentence("GPRMC,120001.00,A,5954.000,N,01042.000,E,0.0,0.0,010524,,,A"))
    #expect(pump(loop) { r.updates.count == before + 2 })
    #expect(r.updates.last?.snapshot.fault == nil, "one report when it ends")
    #expect(source.snapshot.fault == nil)
  }

  @Test func aWatchingGpsdIsSilentUntilItReportsAgain() throws {
    let client = try FakeGpsdClient(nmea: false)
    defer { client.source.stop() }
    let (loop, server, r, source) = (client.loop, client.server, client.recorder, client.source)
    let peer = client.peer
    defer { close(peer) }
    server.send(peer, LiveSourceTests.version)
    server.send(peer, #"{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0}"# + "\n")
    #expect(pump(loop) { source.watching })
    #expect(pump(loop, seconds: 30) { Self.fault(r)??.kind == .silent })
    #expect(r.updates.last?.snapshot.state == .connected)
    let t = "2024-05-01T12:00:00.000Z"
    server.send(
      peer, #"{"class":"TPV","device":"/dev/ttyUSB0","mode":2,"time":"\#(t)","lat":59.9,"lon":10.7}"# + "\n")
    #expect(pump(loop) { Self.fault(r) == .some(nil) })
    #expect(source.snapshot.fault == nil)
  }
}
