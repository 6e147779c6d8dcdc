/// Why an open session's access changed.
public enum AccessChangeReason: String, Sendable, Hashable, CaseIterable {
  /// A reload changed who is in `ReadGroup=` or `AdminGroup=` (the groups themselves, or
  /// which groups they are).
  case configurationReloaded = "configuration-reloaded"
}

/// An open session's access changed: from what to what, why, and what became of its
/// subscriptions (the `access-changed` event).
public struct AccessChange: Sendable, Hashable {
  /// The access before.
  public var from: AccessLevel
  /// The access now.
  public var to: AccessLevel
  /// Why.
  public var reason: AccessChangeReason
  /// Subscriptions removed because the new access does not allow them.
  public var unsubscribed: Set<EventKind>
  /// Subscriptions kept.
  public var subscriptions: Set<EventKind>

  /// A change.
  public init(
    from: AccessLevel, to: AccessLevel, reason: AccessChangeReason, unsubscribed: Set<EventKind>,
    subscriptions: Set<EventKind>
  ) {
    self.from = from
    self.to = to
    self.reason = reason
    self.unsubscribed = unsubscribed
    self.subscriptions = subscriptions
  }
}
