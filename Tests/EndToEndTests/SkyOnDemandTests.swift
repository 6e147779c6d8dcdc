import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// Skies on demand (decision 0069) through the built daemon: a replay of a real log with
/// nobody reading satellites decodes fixes and assembles no sky; a `sky` subscriber turns
/// skies on and gets them; when it goes, they stop again. `status`'s `skies` says which, and
/// its `built` counter is the positive signal the test waits on.
@Suite struct SkyOnDemandTests {
  /// The source's decoded fixes so far.
  static func fixes(_ s: StatusView) -> Int { s.counters(source: 0)["fixes"] ?? 0 }

  @Test func aSubscriberTurnsSkiesOnAndTheyStopWhenItGoes() throws {
    // haicom-305N.log sends a GSV set every cycle (gpsd's .chk has a SKY for most cycles).
    let log = Binaries.fixture("nmea/haicom-305N.log").path
    let daemon = try LocdProcess(arguments: ["--source", "replay:\(log)?speed=4&loop=1"])

    // Nobody reads: fixes are decoded, no sky is built, status says so and shows no summary.
    let idle = try daemon.waitForStatus { Self.fixes($0) >= 5 }
    let skies = try #require(idle.skies)
    #expect(!skies.assembled && skies.readers.isEmpty && skies.built == 0, "\(skies)")
    #expect(idle.satellites == nil)

    // A subscriber: skies are assembled, sky events come, status names the reader.
    let subscriber = try RawClient(path: daemon.socketPath)
    try subscriber.handshake()
    try subscriber.send(.subscribe([.sky]), id: .number(1))
    _ = try subscriber.reply(to: .number(1), .subscribe([.sky]))
    var event: EventMessage? = nil
    let deadline = Date().addingTimeInterval(30)
    while event == nil, Date() < deadline {
      guard case .event(let e) = try subscriber.readMessage(timeout: 30), case .sky = e.data else { continue }
      event = e
    }
    guard case .sky(let sky)? = event?.data else {
      Issue.record("no sky event")
      return
    }
    #expect(sky.source.hasPrefix("replay:") && !sky.satellites.isEmpty)
    let on = try daemon.waitForStatus { ($0.skies?.built ?? 0) > 0 }
    #expect(
      on.skies?.assembled == true && on.skies?.readers == [.known(.subscribers)],
      "\(String(describing: on.skies))")
    #expect(on.satellites != nil)

    // It goes: nobody reads, so no more skies are built while fixes go on being decoded.
    _ = shutdown(subscriber.socket.rawValue, Int32(SHUT_RDWR))
    let off = try daemon.waitForStatus { $0.skies?.assembled == false }
    #expect(off.satellites == nil)
    // The switch reaches the source on the loop's next turn: count from two fixes later.
    let settled = try daemon.waitForStatus { Self.fixes($0) >= Self.fixes(off) + 2 }
    let built = try #require(settled.skies?.built)
    let later = try daemon.waitForStatus { Self.fixes($0) >= Self.fixes(settled) + 8 }
    #expect(later.skies?.built == built, "skies built while nobody read them")
  }
}
