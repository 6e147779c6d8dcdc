import LocCore
import Testing

/// The pure policies behind the live sources: reconnect backoff, gpsd report merging,
/// serial speed detection, counter sums.
@Suite struct SourcePolicyTests {
  @Test func backoffDoublesToItsCapAndStartsOverAfterAHealthyConnection() {
    var b = ReconnectBackoff()
    var now: UInt64 = 1_000
    var delays: [UInt64] = []
    for _ in 0..<9 {
      let d = b.delayAfterFailure(at: now)
      delays.append(d / 1_000_000)
      now += d
    }
    #expect(delays == [1, 2, 4, 8, 16, 32, 60, 60, 60])
    // A connection that dies young does not reset it ...
    b.connected(at: now)
    #expect(b.delayAfterFailure(at: now + 9_999_999) == 60_000_000)
    // ... one that stayed up for 10 s does.
    now += 100_000_000
    b.connected(at: now)
    #expect(b.delayAfterFailure(at: now + 10_000_000) == 1_000_000)
    #expect(b.delayAfterFailure(at: now + 11_000_000) == 2_000_000)
  }

  @Test func coalescerKeepsTheLastReportOfEachTime() {
    func fix(_ seconds: Int64, _ mode: FixMode) -> Fix {
      Fix(time: Instant(microsecondsSinceEpoch: seconds * 1_000_000), coordinate: nil, mode: mode)
    }
    var c = FixCoalescer()
    var out: [Fix] = []
    c.add(fix(1, .twoD)) { out.append($0) }
    c.add(fix(1, .threeD)) { out.append($0) }
    #expect(out.isEmpty)
    c.add(fix(2, .twoD)) { out.append($0) }
    #expect(out == [fix(1, .threeD)])
    c.flush { out.append($0) }
    #expect(out == [fix(1, .threeD), fix(2, .twoD)])
    c.flush { out.append($0) }
    #expect(out.count == 2)
    #expect(c.held == nil)
  }

  @Test func baudHuntMovesOnUntilTwoValidSentencesAndRestartsAtTheWinner() {
    var h = BaudHunt()
    #expect(h.rates == [9600, 4800, 38400, 115200])
    #expect(h.rate == 9600)
    h.beginWindow(validSentences: 0)
    var locked = h.observe(validSentences: 1)
    #expect(!locked)
    var rate = h.nextRate(validSentences: 1)
    #expect(rate == 4800)
    locked = h.observe(validSentences: 2)
    #expect(!locked)  // one since this window began
    locked = h.observe(validSentences: 3)
    #expect(locked)
    #expect(h.isLocked)
    rate = h.nextRate(validSentences: 3)
    #expect(rate == 4800)  // locked: stays
    h.restart(validSentences: 3)
    #expect(!h.isLocked)
    #expect(h.rate == 4800)
    for _ in 0..<4 { _ = h.nextRate(validSentences: 3) }
    #expect(h.rate == 4800)
    #expect(h.failedRounds == 1)
    #expect(h.probes == 6)
  }

  @Test func countersAddEveryField() {
    let bytes = NMEAFixtures.bytes("gp-320fw-2019-04-07-coldboot.log")
    let one = NMEAFixtures.decode(bytes).counters
    var sum = one
    sum.add(one)
    let single = Mirror(reflecting: one).children.map { $0.value as? Int }
    let double = Mirror(reflecting: sum).children.map { $0.value as? Int }
    // Every counter of NMEACounters, implausibleValues the last (rolloverRefused: issue 43).
    #expect(single.count == 18)
    #expect(single.filter { ($0 ?? 0) > 0 }.count >= 8)
    for (a, b) in zip(single, double) { #expect(b == a.map { $0 * 2 }) }
  }
}
