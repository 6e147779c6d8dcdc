/// Queries: the resolved position and the full status, assembled from the machines.
extension Engine {
  /// The resolver's answer at `now`.
  public func resolve(at now: Instant) -> ResolvedPosition {
    positions.resolve(
      at: now, freshness: PositionResolver.Freshness(fix: config.freshFor, network: config.network.freshFor),
      receiversIdle: !acquisition.isAcquiring,
      noSource: config.defaultSourceSetAside.map {
        "no source: the default \(SourceURI.defaultSource) would read \($0), which stands in for gpsd; "
          + "set Source= to the receiver"
      }, advice: fallbackAdvice)
  }

  /// What the engine knows of the fallback tiers for the remedy (the positions machine adds
  /// the receiver and the static file).
  var fallbackAdvice: FallbackAdvice {
    var a = FallbackAdvice()
    let n = network.report
    a.networkEnabled = n.enabled
    a.ipLookup = n.ipLookup
    a.lookupProblem = n.lastProblem
    a.scanProblem = n.scanProblem
    a.staticFile = config.staticFile.flatMap { $0.isEmpty ? nil : $0 }
    return a
  }

  /// The engine's part of the full status at `now`; the shell completes the rest
  /// (`StatusReport.completed(server:sources:)`).
  public func status(at now: Instant) -> StatusReport { status(at: now, sunMemo: nil, border: nil).report }

  /// The status a `status` request answers: today's sun is kept from the last answer while
  /// the position, the zone and the local date are the same, and the distance to the nearest
  /// border while the position is (they are most of the work of an answer otherwise, and a
  /// client polling status asks the same question each time).
  mutating func answerStatus(at now: Instant) -> StatusReport {
    let (report, memo, border) = status(at: now, sunMemo: regeneration.keptSun, border: zones.keptBorder)
    regeneration.keep(memo)
    zones.keep(border)
    return report
  }

  private func status(
    at now: Instant, sunMemo: SunMemo?, border: BorderMemo?
  ) -> (report: StatusReport, sunMemo: SunMemo?, border: BorderMemo?) {
    let resolved = resolve(at: now)
    var zone = zones.peekReport(for: resolved, configured: config.timeZone, at: now)
    var border = border
    if zone.origin == .position, let c = resolved.position?.coordinate {
      let probed = zones.nearBorder(c, kept: border)
      zone.borderDistance = probed.distance
      border = probed
    }
    var memo = sunMemo
    let sun = resolved.position.flatMap { p in
      zones.peekRules(zone.id).map { rules in
        let key = SunMemo.Key(coordinate: p.coordinate, zone: zone.id, date: rules.localDate(at: now))
        if let memo, memo.key == key { return memo.report }
        let report = SunReport(today: p.coordinate, in: rules, at: now)
        memo = SunMemo(key: key, report: report)
        return report
      }
    }
    let fix = positions.latest.map {
      FixSummary(
        mode: $0.fix.mode, quality: $0.fix.quality, satellitesUsed: $0.fix.satellitesUsed,
        satellitesInView: $0.fix.satellitesInView, accuracy: $0.fix.horizontalAccuracy, hdop: $0.fix.hdop,
        time: $0.fix.time, altitudeMSL: $0.fix.altitudeMSL, speed: $0.fix.speed, course: $0.fix.course)
    }
    var server = ServerCounters()
    server.permissionDenied = sessions.permissionDenied
    var report = StatusReport(
      position: resolved, fix: fix, sources: positions.sortedSources, timeZone: zone, sun: sun,
      server: server,
      sessions: sessions.count, startedAt: statusLine.startedAt, stateProblem: positions.stateProblem,
      summary: StatusSummary(resolved, fix: positions.latest?.fix, zone: zone.id).line,
      timers: timers.count, nextTimer: timers.next(zone: regeneration.zone),
      rejectedFixes: positions.rejectionCounters, acquisition: acquisition.report, apps: appsReport(at: now),
      beacons: beacons.report)
    report.sourceFixes = positions.reports
    report.satellites = positions.newestSky?.sky.summary
    report.skies = skyDemand.report(subscribers: sessions.recipients(of: .sky).count, at: now)
    report.now = now
    report.manual = positions.manualLocation
    report.network = network.report
    report.heading = heading.report
    report.lightDark = lightDark.report.counters.requests > 0 ? lightDark.report : nil
    report.staticFile = reportedStaticFile
    report.outOfBounds = positions.outOfBoundsReport
    if config.setSystemTimeZone { report.systemZone = zones.systemZoneReport }
    if regions.hasReport {
      report.regions = regions.report(at: now, refresh: config.acquisition.refreshInterval)
    }
    return (report, memo, border)
  }
}

extension Engine {
  /// The time-zone data in use (the shell compares what it reads again with it).
  public var zoneCatalog: ZoneCatalog { zones.catalog }
}

extension Engine {
  /// Each source's latest satellites, as `sky` answers them: what the gpsd face's SKY
  /// reports are made of (for the clients that may have full accuracy).
  public var skies: [SourceSky] { positions.skies }

  /// The static file as status shows it: while the file exists (in use or unusable), or while
  /// `StaticFile=` names another file than the default /etc/geolocation, which most machines
  /// do not have and which is then no news.
  var reportedStaticFile: StaticFileState? {
    let state = positions.staticFile
    guard let configured = config.staticFile, state.path != nil else { return nil }
    let exists = state.position != nil || state.problem != nil
    return exists || configured != DaemonConfig.defaultStaticFile ? state : nil
  }
}
