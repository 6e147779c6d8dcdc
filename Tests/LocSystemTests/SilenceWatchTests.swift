import Testing

@testable import LocSystem

/// The silence deadline of a live stream, on plain numbers: 10 s (`limitMicroseconds`) after
/// the last byte, a silence counted once, none while not watched or paused.
@Suite struct SilenceWatchTests {
  let limit = SilenceWatch.limitMicroseconds

  @Test func theDeadlineFollowsTheLastByte() {
    var watch = SilenceWatch()
    watch.restart(at: 1_000)
    #expect(watch.deadline(paused: false) == 1_000 + limit)
    let endedSilence = watch.heard(at: 4_000)
    #expect(!endedSilence)
    #expect(watch.deadline(paused: false) == 4_000 + limit)
  }

  @Test func aSilenceIsCountedOnceAndEndsWithTheNextByte() {
    var watch = SilenceWatch()
    watch.restart(at: 0)
    let began = watch.expired(paused: false)
    #expect(began)
    #expect(watch.silent && watch.silences == 1)
    // Already silent: no deadline, and no second count.
    #expect(watch.deadline(paused: false) == nil)
    let beganAgain = watch.expired(paused: false)
    #expect(!beganAgain)
    #expect(watch.silences == 1)
    let endedSilence = watch.heard(at: 20_000_000)
    #expect(endedSilence)
    #expect(!watch.silent)
    #expect(watch.deadline(paused: false) == 20_000_000 + limit)
  }

  @Test func noSilenceWhilePausedOrNotWatched() {
    var watch = SilenceWatch()
    watch.restart(at: 0)
    #expect(watch.deadline(paused: true) == nil)
    let beganPaused = watch.expired(paused: true)
    #expect(!beganPaused)
    watch.watch(false, at: 5)
    #expect(watch.deadline(paused: false) == nil)
    let beganUnwatched = watch.expired(paused: false)
    #expect(!beganUnwatched)
    #expect(watch.silences == 0)
  }

  @Test func watchingAgainIsTimedFromThen() {
    var watch = SilenceWatch()
    watch.restart(at: 0)
    watch.watch(false, at: 1_000)
    watch.watch(true, at: 30_000_000)
    #expect(watch.deadline(paused: false) == 30_000_000 + limit)
    // Already watching: the deadline stays where the last byte put it.
    watch.watch(true, at: 35_000_000)
    #expect(watch.deadline(paused: false) == 30_000_000 + limit)
  }

  @Test func anEndedStreamIsNotSilent() {
    var watch = SilenceWatch()
    watch.restart(at: 0)
    _ = watch.expired(paused: false)
    watch.ended()
    #expect(!watch.silent && watch.silences == 1)
  }
}
