/// Why a fix was dropped, in words for `locctl status` (never a coordinate).
extension PositionMachine {
  /// The URI of `source`, or "source N" before its first snapshot.
  func uri(of source: SourceID) -> String { sources[source]?.uri ?? "source \(source.index)" }

  /// Explains rejection `why` of `fix` from `source` at `now`, given the source's newest fix
  /// time and the current position before the verdict.
  func explain(
    _ why: FixAcceptance.Rejection, _ fix: Fix, _ source: SourceID, _ trust: SourceTrust, _ now: Instant,
    newest: Instant?, current: Position?
  ) -> String {
    switch why {
    case .noFix:
      return fix.quality == .simulated ? "a simulator's fix" : "no position in it (no fix)"
    case .future:
      return "dated \(SourceFixReport.span(fix.time.duration(since: now))) ahead of this machine's clock"
    case .outranked:
      let other = acceptance.outranking(trust, other: source, at: now).map { uri(of: $0) } ?? "another source"
      let rank = acceptance.outranking(trust, other: source, at: now).flatMap { sources[$0]?.trust }
      return "\(other) (trust \(rank?.description ?? "higher")) is live; this source's trust is \(trust)"
    case .old:
      if let newest, fix.time == newest { return "the same time as the source's fix before" }
      if let newest, fix.time < newest {
        return "its times went back \(SourceFixReport.span(newest.duration(since: fix.time))) "
          + "(a recording that repeats?)"
      }
      if let current {
        return "older than the current fix from \(current.source) "
          + "by \(SourceFixReport.span(current.time.duration(since: fix.time)))"
      }
      return "older than the fixes before"
    case .implausibleJump:
      guard let current, let c = fix.coordinate else { return "too far from the current position" }
      let seconds = max(1, min(fix.time, now).seconds(since: min(current.time, current.receivedAt)))
      return "\(TimeFormat.distance(c.distance(to: current.coordinate))) from the current position "
        + "in \(TimeFormat.duration(.milliseconds(Int64(seconds * 1000))))"
    case .insideAccuracy:
      return "less accurate than the current fix and inside its circle"
    }
  }
}
