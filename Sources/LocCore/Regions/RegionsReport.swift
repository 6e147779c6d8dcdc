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

extension RegionsMachine {
  /// Whether status shows regions: something is monitored, or was (counters say so).
  var hasReport: Bool {
    isMonitoring || counters != Counters() || monitor.counters != RegionMonitor.Counters()
      || visits.counters != VisitMonitor.Counters()
  }

  /// The report at `now` (the hint with the periodic refresh as its ceiling).
  func report(at now: Instant, refresh: Duration) -> RegionsReport {
    let hint = hint(at: now, refresh: refresh)
    let m = monitor.counters
    let v = visits.counters
    return RegionsReport(
      regions: monitor.count, apps: appsWithRegions, visitApps: visitApps.count,
      visiting: visits.current != nil,
      nextFixDue: hint?.due, because: hint?.because,
      counters: [
        Counter("fixes", m.fixes), Counter("ignoredFixes", m.ignoredFixes), Counter("refused", m.refused),
        Counter("refusedReduced", counters.refusedReduced),
        Counter("refusedUnauthorized", counters.refusedUnauthorized), Counter("transitions", m.transitions),
        Counter("dwells", m.dwells), Counter("notDelivered", counters.notDelivered),
        Counter("hintTriggers", counters.hintTriggers), Counter("statesWithheld", counters.statesWithheld),
        Counter("visitFixes", v.fixes),
        Counter("arrivals", v.arrivals), Counter("departures", v.departures),
      ])
  }
}
