import LocCore
import Testing

@testable import LocSystem

/// The parts of `SerialSource` that decide, on plain numbers: the line's speed (fixed, or a
/// hunt that an idle close keeps and an unplug starts over) and the opens and outages.
@Suite struct SerialPartsTests {
  @Test func aFixedRateIsSettledAndNeverMoves() {
    var speed = SerialSpeed(.fixed(4800))
    #expect(speed.isSettled && speed.rate == 4800)
    let hunting = speed.opened(validSentences: 0)
    #expect(!hunting)
    let next = speed.nextRate(validSentences: 0)
    #expect(next == nil)
    #expect(speed.counters == [Counter("baud", 4800)])
  }

  @Test func aHuntSettlesOnValidSentencesAndAnIdleCloseKeepsTheRate() {
    var speed = SerialSpeed(.auto)
    let rates = SourceURI.autoBaudRates
    #expect(!speed.isSettled && speed.rate == rates[0])
    let hunting = speed.opened(validSentences: 10)
    #expect(hunting)
    // Sentences counted before the window do not settle it.
    let tooFew = speed.observe(validSentences: 10 + BaudHunt.sentencesToLock - 1)
    #expect(!tooFew)
    let next = speed.nextRate(validSentences: 20)
    #expect(next?.rate == rates[1] && next?.firstRoundFailed == false)
    let settled = speed.observe(validSentences: 20 + BaudHunt.sentencesToLock)
    #expect(settled && speed.isSettled && speed.rate == rates[1])
    #expect(speed.counters == [Counter("baud", rates[1]), Counter("baudProbes", 2)])
    // Closed while idle: the rate found is kept, and the next open does not hunt.
    speed.closedWhileIdle(validSentences: 30)
    let huntsAgain = speed.opened(validSentences: 30)
    #expect(!huntsAgain && speed.rate == rates[1])
    // Unplugged: the hunt starts over, at the rate last used.
    speed.deviceGone(validSentences: 30)
    #expect(!speed.isSettled && speed.rate == rates[1])
  }

  @Test func theFirstFailedPassOverAllRatesIsSaidOnce() {
    var speed = SerialSpeed(.auto)
    let count = SourceURI.autoBaudRates.count
    var firstFailures: [Int] = []
    for step in 1...(2 * count) {
      if speed.nextRate(validSentences: 0)?.firstRoundFailed == true { firstFailures.append(step) }
    }
    #expect(firstFailures == [count])
  }

  @Test func aFailedPassIsAFailureUntilTheHuntSettlesOrStartsOver() {
    var speed = SerialSpeed(.auto)
    _ = speed.opened(validSentences: 0)
    for _ in 1..<SourceURI.autoBaudRates.count { _ = speed.nextRate(validSentences: 0) }
    #expect(speed.failure == nil, "a first pass not yet over is no failure")
    _ = speed.nextRate(validSentences: 0)
    #expect(speed.failure == "no NMEA at 9600, 4800, 38400, 115200 baud")
    _ = speed.nextRate(validSentences: 0)
    #expect(speed.failure != nil, "still failing while trying again")
    let settled = speed.observe(validSentences: BaudHunt.sentencesToLock)
    #expect(settled && speed.failure == nil)
    // Unplugged after another failed pass: the hunt starts over, with no failure yet.
    var other = SerialSpeed(.auto)
    for _ in SourceURI.autoBaudRates { _ = other.nextRate(validSentences: 0) }
    #expect(other.failure != nil)
    other.deviceGone(validSentences: 0)
    #expect(other.failure == nil, "an unplug starts over")
    #expect(SerialSpeed(.fixed(4800)).failure == nil)
  }

  @Test func anOutageBeginsOnceAndEndsWithAnOpenOrIdle() {
    var openings = DeviceOpenings()
    let began = openings.unavailable()
    let again = openings.unavailable()
    #expect(began && !again && openings.failing)
    let reopened = openings.opened()
    #expect(!reopened && !openings.failing)
    openings.read(5)
    openings.lost()
    let beganAfterLoss = openings.unavailable()
    #expect(beganAfterLoss)
    openings.idle()
    let beganAfterIdle = openings.unavailable()
    #expect(beganAfterIdle)
    let openedAgain = openings.opened()
    #expect(openedAgain)
    openings.openFailed()
    #expect(
      openings.counters == [
        Counter("opens", 2), Counter("failedOpens", 1), Counter("disconnects", 1), Counter("bytes", 5),
      ])
  }
}
