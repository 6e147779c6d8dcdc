/// What locd remembers about one timer between runs: the last occurrence it handled (fired or
/// deliberately skipped) and since when it exists, so a restart neither fires an occurrence
/// twice nor mistakes occurrences from before the timer existed for missed ones.
public struct TimerRecord: Sendable, Hashable {
  /// The date of the last occurrence handled; later occurrences only.
  public var handledDate: CivilDate?
  /// When it last fired.
  public var lastFiredAt: Instant?
  /// When locd first saw the timer: occurrences before are never "missed".
  public var since: Instant

  /// A record.
  public init(handledDate: CivilDate? = nil, lastFiredAt: Instant? = nil, since: Instant) {
    self.handledDate = handledDate
    self.lastFiredAt = lastFiredAt
    self.since = since
  }
}
