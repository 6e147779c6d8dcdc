/// The answer to a one-shot `locate` request: the best position locd has, with its
/// provenance, never empty without a reason.
public struct LocateAnswer: Sendable, Hashable {
  /// The resolver's answer when the request was answered (fresh fix, cached, manual, none).
  public var position: ResolvedPosition
  /// The accuracy the client asked for.
  public var wanted: Meters
  /// Whether the answer is a fresh fix at least that accurate.
  public var accuracyMet: Bool
  /// How long the request waited.
  public var waited: Duration
  /// Why the answer is not a fresh fix as accurate as asked, if it is not.
  public var note: String?

  /// An answer; `accuracyMet` follows from the position.
  public init(position: ResolvedPosition, wanted: Meters, waited: Duration, note: String?) {
    self.position = position
    self.wanted = wanted
    self.accuracyMet = LocateAnswer.satisfies(position, wanted)
    self.waited = waited
    self.note = accuracyMet ? nil : note
  }

  /// Whether `resolved` is a fresh fix with an accuracy estimate no worse than `wanted`.
  public static func satisfies(_ resolved: ResolvedPosition, _ wanted: Meters) -> Bool {
    guard resolved.tier == .fix, let accuracy = resolved.position?.accuracy else { return false }
    return accuracy <= wanted
  }

  /// Where an answer's position comes from.
  public enum Provenance: String, Sendable, Hashable {
    /// A fresh fix.
    case fresh
    /// The last known position, no longer fresh.
    case cached
    /// The manual location.
    case manual
    /// Nothing (degraded mode).
    case none
  }

  /// Where the position comes from, by its tier.
  public var provenance: Provenance {
    switch position.tier {
    case .fix: return .fresh
    case .cached: return .cached
    case .manual: return .manual
    case .none: return .none
    }
  }
}
