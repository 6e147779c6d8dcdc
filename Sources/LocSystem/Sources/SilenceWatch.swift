/// When a live stream falls silent: no byte for `limitMicroseconds` while silence is
/// watched and input is wanted. A silence is counted once when it begins and ends with the
/// next byte. Times are the loop's monotonic clock in microseconds; the owner arms its timer
/// at `deadline`.
struct SilenceWatch {
  /// No byte for this long is a silence. A receiver sends at least once a second: ten
  /// missed cycles is not a hiccup.
  static let limitMicroseconds: UInt64 = 10_000_000

  /// When the last byte came (or the stream began, or watching began).
  private var lastByteAt: UInt64 = 0
  /// Whether no byte has come for `limitMicroseconds`.
  private(set) var silent = false
  /// Silences so far.
  private(set) var silences = 0
  /// Whether silence is watched for (gpsd with its watch off is silent by request).
  private(set) var watching = true

  /// A stream begins, or input is wanted again: not silent, timed from `now`.
  mutating func restart(at now: UInt64) {
    lastByteAt = now
    silent = false
  }

  /// The stream ended: no silence until it begins again.
  mutating func ended() {
    silent = false
  }

  /// Watches for silence or not; turning it on times it from `now`.
  mutating func watch(_ on: Bool, at now: UInt64) {
    if on && !watching { lastByteAt = now }
    watching = on
  }

  /// Bytes came at `now`; true when this ends a silence.
  mutating func heard(at now: UInt64) -> Bool {
    lastByteAt = now
    defer { silent = false }
    return silent
  }

  /// When the stream becomes silent if nothing comes; nil when no silence is due (not
  /// watching, already silent, or `paused`: input not wanted).
  func deadline(paused: Bool) -> UInt64? {
    guard watching && !silent && !paused else { return nil }
    return lastByteAt + SilenceWatch.limitMicroseconds
  }

  /// The deadline passed; true when a silence begins now (counted), false when none was due.
  mutating func expired(paused: Bool) -> Bool {
    guard deadline(paused: paused) != nil else { return false }
    silent = true
    silences += 1
    return true
  }
}
