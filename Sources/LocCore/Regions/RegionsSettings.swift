/// The `[Regions]` section of locd.conf: the limits on regions and how acquisition plans
/// fixes for them (docs/REGIONS.md).
public struct RegionsSettings: Sendable, Hashable {
  /// Most regions one app (one user's app) may monitor.
  public var maxRegionsPerApp = 10_000
  /// Most regions over all apps.
  public var maxRegions = 100_000
  /// Most regions over all apps of one user: a quarter of `maxRegions` by default, so that
  /// one user's apps leave room for everyone else's (issue 28, finding 4).
  public var maxRegionsPerUser = 25_000
  /// The fastest the device is assumed to move when planning the next fix.
  public var maxSpeed = MetersPerSecond(40)
  /// Fixes for regions and visits are never planned closer than this after the last one.
  public var hintFloor: Duration = .seconds(30)

  /// The defaults.
  public init() {}

  /// The monitor's configuration from these settings.
  var monitor: RegionMonitor.Configuration {
    var c = RegionMonitor.Configuration()
    c.maxRegionsPerOwner = maxRegionsPerApp
    c.maxRegions = maxRegions
    return c
  }

  /// The hint policy, its ceiling the periodic refresh.
  func policy(refresh: Duration) -> FixHintPolicy {
    var p = FixHintPolicy()
    p.maxSpeed = maxSpeed
    p.floor = hintFloor
    p.ceiling = max(refresh, hintFloor)
    return p
  }
}
