/// What acceptance made of one source's fixes lately, for `locctl status`: whether its fixes
/// are being dropped and why, and whether its time disagrees with the clock. A source whose
/// fixes all flow in and are all dropped must say so (a looping recording makes every repeat
/// "old"; a receiver dated in 2079 is "future"), not leave the user with "no fresh fix".
public struct SourceFixReport: Sendable, Hashable {
  /// Fixes dropped one after another since the source's last accepted fix.
  public struct Dropping: Sendable, Hashable {
    /// Why the latest was dropped.
    public var reason: FixAcceptance.Rejection
    /// How many in a row (the reasons may differ; `reason` is the latest).
    public var count: Int
    /// When the first of them came (the clock).
    public var since: Instant
    /// The latest reason in words, for people: "its times went back 2 h 3 min (a recording
    /// that repeats?)". No coordinates.
    public var detail: String
  }

  /// The current run of dropped fixes; nil once a fix is accepted (or none came yet).
  public var dropping: Dropping?
  /// How far the source's latest fix time is ahead of (positive) or behind (negative) the
  /// clock, when that is more than the acceptance's `futureTolerance` either way; nil while
  /// its time agrees with the clock.
  public var clockOffset: Duration?

  /// Nothing to report.
  public init(dropping: Dropping? = nil, clockOffset: Duration? = nil) {
    self.dropping = dropping
    self.clockOffset = clockOffset
  }

  /// Notes one fix's verdict at `now`: a drop extends the run (or starts it), an acceptance
  /// ends it. `detail` is only evaluated for a drop.
  mutating func note(
    _ rejection: FixAcceptance.Rejection?, at now: Instant, detail: @autoclosure () -> String
  ) {
    guard let rejection else {
      dropping = nil
      return
    }
    let run = dropping
    dropping = Dropping(
      reason: rejection, count: (run?.count ?? 0) + 1, since: run?.since ?? now, detail: detail())
  }

  /// Notes the offset of a fix's time from the clock; kept only beyond `tolerance`.
  mutating func noteClock(fixTime: Instant, at now: Instant, tolerance: Duration) {
    let offset = fixTime.duration(since: now)
    clockOffset = offset > tolerance || offset < .zero - tolerance ? offset : nil
  }

  /// `53 years`, `3 d`, `2 h 3 min`: a span of any length for people.
  public static func span(_ d: Duration) -> String {
    let seconds = abs(d.seconds)
    let year = 365.2425 * 86_400
    if seconds >= year { return "\((seconds / year * 10).rounded() / 10) years" }
    return TimeFormat.duration(.microseconds(Int64(seconds * 1_000_000)))
  }

  /// The clock disagreement in words ("its fix times are 53 years ahead of this machine's
  /// clock"), or nil when there is none.
  public var clockText: String? {
    guard let offset = clockOffset else { return nil }
    let way = offset > .zero ? "ahead of" : "behind"
    return "its fix times are \(SourceFixReport.span(offset)) \(way) this machine's clock"
  }
}
