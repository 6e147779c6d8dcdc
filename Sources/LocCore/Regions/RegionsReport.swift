/// What `status` shows about regions and visits: how many, for how many apps, when the next
/// fix for them is due and why, and the counters. No region, centre or visit.
public struct RegionsReport: Sendable, Hashable {
  /// Regions monitored over all apps.
  public var regions: Int
  /// Apps with at least one region.
  public var apps: Int
  /// Apps that monitor visits.
  public var visitApps: Int
  /// A visit in progress (the device has arrived somewhere and not left).
  public var visiting: Bool
  /// When the next fix for regions or visits is due (nil: nothing monitored).
  public var nextFixDue: Instant?
  /// Why then, in words ("region boundary 12 km away at 40 m/s").
  public var because: String?
  /// Counters (the monitors' and the delivery's).
  public var counters: [Counter]

  /// A report.
  public init(
    regions: Int, apps: Int, visitApps: Int, visiting: Bool, nextFixDue: Instant?, because: String?,
    counters: [Counter]
  ) {
    self.regions = regions
    self.apps = apps
    self.visitApps = visitApps
    self.visiting = visiting
    self.nextFixDue = nextFixDue
    self.because = because
    self.counters = counters
  }
}
