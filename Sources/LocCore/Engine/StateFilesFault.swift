/// Writes of the state directory's files that fail (a full disk, a read-only file system):
/// since when, and why in the system's words. Changes made meanwhile are in effect and
/// answered `not-saved`; the fault ends when every file is written again.
public struct StateFilesFault: Sendable, Hashable {
  /// What failed, as the log says it (`cannot write /var/lib/locd/apps/1000.json: ...`).
  public var reason: String
  /// When the first write failed (the daemon's clock).
  public var since: Instant

  /// A fault for `reason` that began at `since`.
  public init(reason: String, since: Instant) {
    self.reason = reason
    self.since = since
  }
}
