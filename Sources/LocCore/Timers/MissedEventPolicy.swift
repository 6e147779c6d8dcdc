/// What a timer does about occurrences that passed while locd was stopped, the machine slept,
/// or the clock jumped over them.
public enum MissedEventPolicy: String, Sendable, Hashable, CaseIterable {
  /// Forget them; fire again at the next occurrence (the default, like systemd timers
  /// without Persistent=).
  case skip
  /// Fire once, late, for the latest missed occurrence; the event counts how many were missed.
  case once
  /// Fire once per missed occurrence, oldest first.
  case all

  /// The occurrences to fire late, from those missed (oldest first), each with the number of
  /// missed occurrences it stands for.
  public func select<T>(_ missed: [T]) -> [(occurrence: T, standsFor: Int)] {
    switch self {
    case .skip: return []
    case .once: return missed.last.map { [($0, missed.count)] } ?? []
    case .all: return missed.map { ($0, 1) }
    }
  }
}
