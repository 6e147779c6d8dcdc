/// The `[Apps]` section of locd.conf: where the policy files are, the windows and bounds of
/// the app model (docs/APPS.md).
public struct AppsSettings: Sendable, Hashable {
  /// Where the policy files (`*.conf`) are read from.
  public var policyDirectory = "/etc/locd/apps.d"
  /// How long an app stays in use after it left the foreground.
  public var inUseGrace: Duration = .seconds(10)
  /// A held or queued event older than this is dropped (and counted), not delivered.
  public var maxEventAge: Duration = .seconds(600)
  /// How long an agent has to answer a prompt.
  public var promptTimeout: Duration = .seconds(60)
  /// After a prompt went unanswered, the same app is not asked again before this.
  public var promptInterval: Duration = .seconds(300)
  /// Most apps (decided, registered or connected) one user may have.
  public var maxAppsPerUser = 256
  /// Largest apps store file written for one user (`apps/UID.json`), at most the 32 MiB
  /// the reader accepts: a change that would make it larger is kept in memory, not written.
  /// 16 MiB holds MaxRegionsPerUser= 25,000 regions with the longest ids and 256 apps.
  public var maxStoreBytesPerUser = 16 << 20
  /// Most events held for one app (provisional always) or queued for it (always, not
  /// connected); the oldest go first.
  public var maxQueuedEvents = 32

  /// The defaults.
  public init() {}
}
