import LocCore
import Testing

@testable import LocSystem

/// Flow control's rules (docs/SOURCES.md, "Replays and simulated time") on a manual loop:
/// a client over its limit is held and the producer paused; one that reads nothing for the
/// stall limit is dropped; progress restarts its wait; a queue past the ceiling is not held;
/// a drain ends when every queue is empty. Before the event-loop seam these ran only with a
/// replaying locd and real slow sockets (ReplayFlowControl end-to-end tests, kept).
@Suite struct FlowControlTests {
  /// Clients of a test: a queue size each, and the drops flow control asked for.
  final class Clients: FlowControlHost {
    var queued: [SessionID: Int] = [:]
    var dropped: [(SessionID, String)] = []
    weak var control: FlowControl?
    let maxQueuedBytes = 1_000
    var sessionsWithQueuedBytes: [SessionID] { queued.filter { $0.value > 0 }.keys.sorted() }
    func isConnected(_ id: SessionID) -> Bool { queued[id] != nil }
    func dropSlow(_ id: SessionID, why: String) {
      dropped.append((id, why))
      queued[id] = nil
      control?.forget(id)
    }
  }

  let loop = ManualLoop()
  let clients = Clients()

  func control(_ record: @escaping (Bool) -> Void) -> FlowControl {
    let control = FlowControl(host: clients, scheduler: loop, stallLimit: .seconds(30), congestion: record)
    clients.control = control
    return control
  }

  @Test func aHeldClientThatReadsNothingIsDroppedAtTheStallLimitAndTheProducerGoesOn() {
    var congestion: [Bool] = []
    let control = control { congestion.append($0) }
    let a = SessionID(1)
    let b = SessionID(2)
    clients.queued = [a: 1_500, b: 10]
    #expect(control.hold(a, queued: 1_500, adding: 0))
    #expect(congestion == [true])
    loop.advance(by: .seconds(29))
    #expect(clients.dropped.isEmpty)
    loop.advance(by: .seconds(2))
    #expect(clients.dropped.map(\.0) == [a])
    #expect(clients.dropped.first?.1.contains("read nothing for 30 s") == true)
    #expect(congestion == [true, false])
    #expect(control.held.isEmpty)
    #expect(loop.nextDeadlineMicroseconds == nil)
  }

  @Test func progressRestartsTheWaitAndAnEmptyQueueReleasesTheProducer() {
    var congestion: [Bool] = []
    let control = control { congestion.append($0) }
    let a = SessionID(7)
    clients.queued = [a: 2_000]
    #expect(control.hold(a, queued: 2_000, adding: 0))
    loop.advance(by: .seconds(20))
    control.flushed(a, queued: 1_200, progressed: true)
    loop.advance(by: .seconds(20))
    #expect(clients.dropped.isEmpty, "a client that wrote something 20 s ago is not stalled")
    control.flushed(a, queued: 1_200, progressed: false)
    loop.advance(by: .seconds(9))
    #expect(clients.dropped.isEmpty)
    control.flushed(a, queued: 0, progressed: true)
    #expect(congestion == [true, false])
    loop.advance(by: .seconds(60))
    #expect(clients.dropped.isEmpty)
  }

  @Test func aQueuePastTheCeilingIsNotHeld() {
    let control = control { _ in }
    let a = SessionID(3)
    let ceiling = clients.maxQueuedBytes * FlowControl.ceilingFactor
    #expect(control.hold(a, queued: ceiling - 10, adding: 10))
    #expect(!control.hold(a, queued: ceiling - 10, adding: 11))
  }

  @Test func aDrainEndsOnceEveryQueueIsEmptyDroppingClientsThatStall() {
    var done = 0
    let control = control { _ in }
    let reading = SessionID(1)
    let stuck = SessionID(2)
    clients.queued = [reading: 100, stuck: 100, SessionID(3): 0]
    control.drain { done += 1 }
    loop.advance(by: .seconds(10))
    control.flushed(reading, queued: 0, progressed: true)
    loop.runDeferred()
    #expect(done == 0, "one client still has bytes queued")
    loop.advance(by: .seconds(21))
    #expect(clients.dropped.map(\.0) == [stuck])
    #expect(done == 1)
  }

  @Test func aDrainWithNothingQueuedEndsOnTheNextIteration() {
    var done = 0
    let control = control { _ in }
    control.drain { done += 1 }
    #expect(done == 0, "never inside the call")
    loop.runDeferred()
    #expect(done == 1)
  }
}
