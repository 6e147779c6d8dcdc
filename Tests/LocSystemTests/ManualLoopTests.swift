import LocCore
import Testing

@testable import LocSystem

/// The manual loop the shell's timing rules are tested on: its timers fire in deadline order
/// at their own deadlines, deferred work runs after the callback that asked for it, and the
/// wall clock can step on its own.
@Suite struct ManualLoopTests {
  @Test func timersFireInDeadlineOrderEachAtItsDeadline() throws {
    let loop = ManualLoop()
    let start = loop.monotonicMicroseconds
    var fired: [(String, UInt64)] = []
    let a = try loop.makeTimer(clock: .monotonic, accuracyMicroseconds: 1) {
      fired.append(("a", loop.monotonicMicroseconds - start))
    }
    let b = try loop.makeTimer(clock: .monotonic, accuracyMicroseconds: 1) {
      fired.append(("b", loop.monotonicMicroseconds - start))
    }
    let c = try loop.makeTimer(clock: .realtime, accuracyMicroseconds: 1) {
      fired.append(("c", loop.monotonicMicroseconds - start))
    }
    a.arm(atMicroseconds: start + 3_000)
    b.arm(atMicroseconds: start + 1_000)
    c.arm(atMicroseconds: UInt64(loop.now.microsecondsSinceEpoch) + 2_000)
    loop.advance(byMicroseconds: 2_500)
    #expect(fired.map(\.0) == ["b", "c"])
    #expect(fired.map(\.1) == [1_000, 2_000])
    #expect(a.deadline == start + 3_000 && b.deadline == nil)
    loop.advance(byMicroseconds: 10_000)
    #expect(fired.map(\.0) == ["b", "c", "a"])
    #expect(loop.monotonicMicroseconds - start == 12_500)
  }

  @Test func aDisarmedOrCancelledTimerDoesNotFireAndARearmedOneFiresOnceAtItsNewDeadline() throws {
    let loop = ManualLoop()
    var fired: [String] = []
    let a = try loop.makeTimer(clock: .monotonic, accuracyMicroseconds: 1) { fired.append("a") }
    let b = try loop.makeTimer(clock: .monotonic, accuracyMicroseconds: 1) { fired.append("b") }
    let c = try loop.makeTimer(clock: .monotonic, accuracyMicroseconds: 1) { fired.append("c") }
    let t = loop.monotonicMicroseconds
    a.arm(atMicroseconds: t + 100)
    a.arm(atMicroseconds: t + 5_000)
    b.arm(atMicroseconds: t + 200)
    b.disarm()
    c.arm(atMicroseconds: t + 300)
    c.cancel()
    c.arm(atMicroseconds: t + 400)
    #expect(loop.liveTimers == 2)
    loop.advance(byMicroseconds: 1_000)
    #expect(fired.isEmpty)
    loop.advance(byMicroseconds: 4_000)
    #expect(fired == ["a"])
    #expect(loop.nextDeadlineMicroseconds == nil)
  }

  @Test func deferredWorkRunsAfterTheCallbackThatAskedForItNormalBeforeIdle() throws {
    let loop = ManualLoop()
    var order: [String] = []
    let t = try loop.makeTimer(clock: .monotonic, accuracyMicroseconds: 1) {
      order.append("timer")
      loop.soon(priority: .idle) { order.append("idle") }
      loop.soon { order.append("normal") }
    }
    let later = try loop.makeTimer(clock: .monotonic, accuracyMicroseconds: 1) { order.append("later") }
    t.arm(atMicroseconds: loop.monotonicMicroseconds + 10)
    later.arm(atMicroseconds: loop.monotonicMicroseconds + 10)
    loop.advance(byMicroseconds: 10)
    #expect(order == ["timer", "normal", "idle", "later"])
    #expect(loop.dispatched == 4)
  }

  @Test func aWallClockStepFiresWhatItPassedAtTheNextAdvanceAndLeavesMonotonicTimersAlone() throws {
    let loop = ManualLoop()
    var fired: [String] = []
    let wall = try loop.makeTimer(clock: .realtime, accuracyMicroseconds: 1) { fired.append("wall") }
    let mono = try loop.makeTimer(clock: .monotonic, accuracyMicroseconds: 1) { fired.append("mono") }
    wall.arm(atMicroseconds: UInt64(loop.now.microsecondsSinceEpoch) + 3_600_000_000)
    mono.arm(atMicroseconds: loop.monotonicMicroseconds + 60_000_000)
    let before = loop.monotonicMicroseconds
    loop.stepWallClock(byMicroseconds: 7_200_000_000)
    #expect(fired.isEmpty && loop.monotonicMicroseconds == before)
    loop.advance(byMicroseconds: 1)
    #expect(fired == ["wall"])
    loop.advance(by: .seconds(60))
    #expect(fired == ["wall", "mono"])
  }
}
