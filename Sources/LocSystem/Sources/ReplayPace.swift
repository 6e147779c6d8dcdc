import LocCore

/// The pacing of a replay (`ReplaySource`, `BeaconReplaySource`): the speed, when the
/// round's clock started, and flow control's hold. A recorded offset is due `offset / speed`
/// after the start; a hold moves the start by the time held, so `speed=N` keeps its rate
/// rather than catching up. Times are the loop's monotonic clock in microseconds.
struct ReplayPace {
  /// `1`, `N` or `max` (as fast as the loop allows).
  let speed: SourceURI.Speed
  /// When the round's clock started (moved on by holds).
  private var startedAt: UInt64 = 0
  /// Held by flow control since this instant.
  private var heldAt: UInt64?
  /// A tick came while held; the release makes up for it.
  private var missedTick = false

  /// A pace at `speed`, started at 0.
  init(speed: SourceURI.Speed) { self.speed = speed }

  /// Whether flow control holds the replay.
  var isHeld: Bool { heldAt != nil }

  /// A round (or the pause between rounds) starts at `now`.
  mutating func start(at now: UInt64) { startedAt = now }

  /// When something `offset` microseconds into the round is due; nil at `speed=max`.
  func due(offset: Int64) -> UInt64? {
    guard case .factor(let f) = speed else { return nil }
    return startedAt + UInt64(Double(offset) / f)
  }

  /// `delay` after the start, whatever the speed (the pause between rounds).
  func after(_ delay: UInt64) -> UInt64 { startedAt + delay }

  /// Flow control holds the replay from `now`; false if already held.
  mutating func hold(at now: UInt64) -> Bool {
    guard heldAt == nil else { return false }
    heldAt = now
    return true
  }

  /// A tick came while held.
  mutating func missed() { missedTick = true }

  /// Flow control lets go at `now`: the start moves by the time held. True when a tick was
  /// missed meanwhile (the owner plays what is due); false too when it was not held.
  mutating func release(at now: UInt64) -> Bool {
    guard let since = heldAt else { return false }
    heldAt = nil
    startedAt += now - since
    defer { missedTick = false }
    return missedTick
  }
}
