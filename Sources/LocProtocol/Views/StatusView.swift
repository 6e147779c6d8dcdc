import LocCore

/// The status object behind `locctl status --json` (docs/PROTOCOL.md, "status").
/// Coordinates are rounded to what the position's accuracy justifies.
public struct StatusView: WireCodable {
  /// The resolver's answer, rounded.
  public var position: ResolvedPositionView
  /// The manual location when one is set, also while a fix is in use (since 1.2), rounded.
  public var manual: PositionView?
  /// The latest accepted fix's quality, if a fix came in this run.
  public var fix: FixSummaryView?
  /// The time zone in effect.
  public var timezone: ZoneStatusView
  /// Today's sunrise and sunset; nil without a position (every member is null then).
  public var sun: SunView?
  /// Every source.
  public var sources: [SourceView]
  /// The socket server: clients connected and its counters.
  public var server: ServerView
  /// When the daemon started (to the second) and any state file problem.
  public var daemon: DaemonView
  /// The line systemd shows as STATUS=; never contains coordinates.
  public var summary: String
  /// Timers defined and the one that fires next.
  public var timers: TimersSummaryView
  /// Fixes dropped by acceptance, by reason.
  public var rejectedFixes: [Counter]
  /// When fixes are wanted (null from a daemon before protocol 1.1).
  public var acquisition: AcquisitionView?
  /// Apps using the location now, agents, prompts (null from a daemon before protocol 1.2).
  public var apps: AppsStatusView?
  /// Beacon monitoring and ranging (absent from a daemon before protocol 1.2).
  public var beacons: BeaconStatusView?
  /// Regions and visits (absent before protocol 1.3, and while none are monitored).
  public var regions: RegionsStatusView?
  /// Heading: who wants it, whether the compass is claimed (absent before protocol 1.9).
  public var heading: HeadingStatusView?
  /// Light/dark schedules (absent before protocol 1.10, and until a user asked for one).
  public var lightDark: LightDarkStatusView?
  /// The simulation of `locd --clock replay`; null under the system clock (and from a daemon
  /// before protocol 1.2).
  public var simulation: SimulationView?
  /// The GeoClue2 face (absent before protocol 1.4, and while `[GeoClue] Enable=no`).
  public var geoclue: GeoClueStatusView?
  /// The time samples sent to chrony (since 1.7; present only while `[Time] ChronySocket=`
  /// names a socket).
  public var chrony: ChronyStatusView?
  /// The gpsd-compatible face (since 1.8; present only while `[Gpsd] Enable=yes`).
  public var gpsd: GpsdStatusView?
  /// The NMEA pseudo-terminal (since 1.8; present only while `[NMEAOut] Enable=yes`).
  public var nmeaOut: NMEAOutStatusView?
  /// The daemon's now, to the microsecond: the clock every time here is on (simulated under
  /// `locd --clock replay`); absent before protocol 1.6.
  public var now: Instant?
  /// The latest sky's summary (of whichever source reported one last): absent before any
  /// sky, from a daemon before protocol 1.7, and since 1.11 while skies are not assembled.
  public var satellites: SatellitesSummaryView?
  /// Whether skies are assembled and who reads them (absent before protocol 1.11).
  public var skies: SkiesStatusView?
  /// The static location file (since 1.8; present while `[Position] StaticFile=` names one).
  public var staticFile: StaticFileStatusView?
  /// Network positioning (since 1.8).
  public var network: NetworkStatusView?
  /// Values from outside that lay out of bounds since start (since 1.10; present once one did).
  public var outOfBounds: OutOfBoundsStatusView?

  /// The wire form of `r`.
  public init(_ r: StatusReport) {
    position = ResolvedPositionView(r.position, rounded: true)
    manual = r.manual.map { PositionView($0, rounded: true) }
    fix = r.fix.map(FixSummaryView.init)
    timezone = ZoneStatusView(r.timeZone, system: r.systemZone)
    sun = r.sun.map(SunView.init)
    sources = r.sources.map { SourceView($0, fixes: r.sourceFixes[$0.id]) }
    server = ServerView(sessions: r.sessions, counters: r.server)
    daemon = DaemonView(
      startedAt: WireFormat.truncate(r.startedAt, 0), stateProblem: r.stateProblem, stateFiles: r.stateFiles,
      stateFilesFault: r.stateFilesFault.map(StateFilesFaultView.init))
    summary = r.summary
    timers = TimersSummaryView(count: r.timers, next: r.nextTimer.map(TimerView.init))
    rejectedFixes = r.rejectedFixes
    acquisition = r.acquisition.map(AcquisitionView.init)
    apps = r.apps.map(AppsStatusView.init)
    beacons = r.beacons.map(BeaconStatusView.init)
    regions = r.regions.map(RegionsStatusView.init)
    heading = r.heading.map(HeadingStatusView.init)
    lightDark = r.lightDark.map(LightDarkStatusView.init)
    simulation = r.simulation.map(SimulationView.init)
    geoclue = r.geoClue.map(GeoClueStatusView.init)
    chrony = r.chrony.map(ChronyStatusView.init)
    gpsd = r.gpsd.map(GpsdStatusView.init)
    nmeaOut = r.nmeaOut.map(NMEAOutStatusView.init)
    now = r.now
    satellites = r.satellites.map(SatellitesSummaryView.init)
    skies = r.skies.map(SkiesStatusView.init)
    staticFile = r.staticFile.flatMap { s in s.path.map { StaticFileStatusView(s, path: $0) } }
    network = r.network.map(NetworkStatusView.init)
    outOfBounds = r.outOfBounds.map(OutOfBoundsStatusView.init)
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    position = try o.decode("position")
    manual = try o.optionalDecode("manual")
    fix = try o.optionalDecode("fix")
    timezone = try o.decode("timezone")
    let sunObject = try o.object("sun")
    sun = sunObject.value("date") == nil ? nil : try SunView(sunObject)
    sources = try o.array("sources")
    server = try o.decode("server")
    daemon = try o.decode("daemon")
    summary = try o.string("summary")
    timers = try o.decode("timers")
    rejectedFixes = try o.counters("rejectedFixes")
    acquisition = try o.optionalDecode("acquisition")
    apps = try o.optionalDecode("apps")
    beacons = try o.optionalDecode("beacons")
    regions = try o.optionalDecode("regions")
    heading = try o.optionalDecode("heading")
    lightDark = try o.optionalDecode("lightDark")
    simulation = try o.optionalDecode("simulation")
    geoclue = try o.optionalDecode("geoclue")
    chrony = try o.optionalDecode("chrony")
    gpsd = try o.optionalDecode("gpsd")
    nmeaOut = try o.optionalDecode("nmeaOut")
    now = try o.optionalInstant("now")
    satellites = try o.optionalDecode("satellites")
    skies = try o.optionalDecode("skies")
    staticFile = try o.optionalDecode("staticFile")
    network = try o.optionalDecode("network")
    outOfBounds = try o.optionalDecode("outOfBounds")
  }

  public var json: JSON { writtenJSON }
}

extension StatusView: JSONWritable {
  /// The one encoding of status: the reply's line is written from it without a tree
  /// (`ServerMessage.replyLine`), and `json` is the tree of the same writing.
  public func write(to s: inout some JSONSink) {
    s.openObject()
    s.member("position", position)
    s.member("manual", manual)
    s.member("fix", fix)
    s.member("timezone", timezone)
    if let sun { s.member("sun", sun) } else { s.member("sun", SunView.absent) }
    s.key("sources")
    s.array(sources) { s, source in source.write(to: &s) }
    s.member("server", server)
    s.member("daemon", daemon)
    s.member("summary", .string(summary))
    s.member("timers", timers)
    s.key("rejectedFixes")
    s.counters(rejectedFixes)
    s.member("acquisition", acquisition)
    s.member("apps", apps)
    s.member("simulation", simulation?.json ?? .null)
    if let beacons { s.member("beacons", beacons) }
    if let regions { s.member("regions", regions.json) }
    if let heading { s.member("heading", heading.json) }
    if let lightDark { s.member("lightDark", lightDark.json) }
    if let geoclue { s.member("geoclue", geoclue.json) }
    if let chrony { s.member("chrony", chrony.json) }
    if let gpsd { s.member("gpsd", gpsd.json) }
    if let nmeaOut { s.member("nmeaOut", nmeaOut.json) }
    if let now { s.member("now", WireFormat.time(now, 6)) }
    if let satellites { s.member("satellites", satellites.json) }
    if let skies { s.member("skies", skies.json) }
    if let staticFile { s.member("staticFile", staticFile) }
    if let network { s.member("network", network) }
    if let outOfBounds { s.member("outOfBounds", outOfBounds) }
    s.closeObject()
  }
}

/// Today's sunrise and sunset in `status` (`sun`), local day of the zone in effect.
public struct SunView: WireCodable {
  /// The local date.
  public var date: CivilDate
  /// Sunrise, to the second; nil on polar days and nights (see `note`).
  public var sunrise: Instant?
  /// Sunset, to the second; nil on polar days and nights.
  public var sunset: Instant?
  /// Why one is missing.
  public var note: String?

  /// The wire form of `s`.
  public init(_ s: SunReport) {
    date = s.date
    sunrise = s.sunrise.map { WireFormat.truncate($0, 0) }
    sunset = s.sunset.map { WireFormat.truncate($0, 0) }
    note = s.note
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    try self.init(WireObject(json, path: path))
  }

  init(_ o: WireObject) throws(WireDecodingError) {
    date = try o.date("date")
    sunrise = try o.optionalInstant("sunrise")
    sunset = try o.optionalInstant("sunset")
    note = try o.optionalString("note")
  }

  /// The object without a position: every member null.
  static let absent: JSON = .object(["date": .null, "sunrise": .null, "sunset": .null, "note": .null])

  public var json: JSON { writtenJSON }
}

extension SunView: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    s.member("date", .string(date.description))
    s.member("sunrise", WireFormat.time(sunrise, 0))
    s.member("sunset", WireFormat.time(sunset, 0))
    s.member("note", .optional(note))
    s.closeObject()
  }
}

/// The socket server in `status` (`server`): sessions after hello, then the counters.
public struct ServerView: WireCodable {
  /// Clients connected (after hello).
  public var sessions: Int
  /// Connection-level counters.
  public var counters: ServerCounters

  /// A view.
  public init(sessions: Int, counters: ServerCounters) {
    self.sessions = sessions
    self.counters = counters
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    sessions = try o.int("sessions")
    var c = ServerCounters()
    c.accepted = try o.int("accepted")
    c.refusedTooMany = try o.int("refusedTooMany")
    c.droppedSlow = try o.int("droppedSlow")
    c.droppedHandshake = try o.int("droppedHandshake")
    // Since 1.2; a 1.1 daemon does not send them.
    c.refusedPerUser = try o.optionalInt("refusedPerUser") ?? 0
    c.refusedNoDescriptors = try o.optionalInt("refusedNoDescriptors") ?? 0
    c.droppedIdle = try o.optionalInt("droppedIdle") ?? 0
    c.invalidJSON = try o.int("invalidJSON")
    c.invalidRequests = try o.int("invalidRequests")
    c.tooLarge = try o.int("tooLarge")
    c.unknownMethods = try o.int("unknownMethods")
    c.beforeHandshake = try o.int("beforeHandshake")
    c.permissionDenied = try o.int("permissionDenied")
    counters = c
  }

  public var json: JSON { writtenJSON }
}

extension ServerView: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    s.member("sessions", .int(sessions))
    for c in counters.all { s.member(c.name, .int(c.value)) }
    s.closeObject()
  }
}

/// The daemon in `status` (`daemon`).
public struct DaemonView: WireCodable {
  /// When it started, to the second.
  public var startedAt: Instant
  /// A problem with the state file found at start, if any.
  public var stateProblem: String?
  /// The state directory's files: `refused` (not used when read), `writesRefused` (a user's
  /// apps file over MaxStoreBytesPerUser=, not written), `writeFailures` (empty from a daemon
  /// before protocol 1.5); `writes` (files written) and `notSaved` (changes answered
  /// `not-saved`) since protocol 1.10.
  public var stateFiles: [Counter]
  /// Writes failing since when and why (1.10; absent while every change is on disk).
  public var stateFilesFault: StateFilesFaultView?

  /// A view.
  public init(
    startedAt: Instant, stateProblem: String?, stateFiles: [Counter] = [],
    stateFilesFault: StateFilesFaultView? = nil
  ) {
    self.startedAt = startedAt
    self.stateProblem = stateProblem
    self.stateFiles = stateFiles
    self.stateFilesFault = stateFilesFault
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    startedAt = try o.instant("startedAt")
    stateProblem = try o.optionalString("stateProblem")
    stateFiles = o.value("stateFiles") == nil ? [] : try o.counters("stateFiles")
    stateFilesFault = try o.optionalDecode("stateFilesFault")
  }

  public var json: JSON { writtenJSON }
}

extension DaemonView: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    s.member("startedAt", WireFormat.time(startedAt, 0))
    s.member("stateProblem", .optional(stateProblem))
    s.key("stateFiles")
    s.counters(stateFiles)
    if let stateFilesFault { s.member("stateFilesFault", stateFilesFault) }
    s.closeObject()
  }
}

/// Writes of the state directory's files failing (`daemon.stateFilesFault`, protocol 1.10).
public struct StateFilesFaultView: WireCodable {
  /// What failed, in the system's words.
  public var reason: String
  /// When the first write failed, to the second.
  public var since: Instant

  /// A view from its parts, as they are on the wire.
  public init(reason: String, since: Instant) {
    self.reason = reason
    self.since = since
  }

  /// The wire form of `f`.
  public init(_ f: StateFilesFault) { self.init(reason: f.reason, since: WireFormat.truncate(f.since, 0)) }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    reason = try o.string("reason")
    since = try o.instant("since")
  }

  public var json: JSON { writtenJSON }
}

extension StateFilesFaultView: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    s.member("reason", .string(reason))
    s.member("since", WireFormat.time(since, 0))
    s.closeObject()
  }
}

/// Timers in `status` (`timers`): how many, and the next to fire.
public struct TimersSummaryView: WireCodable {
  /// Timers defined.
  public var count: Int
  /// The timer that fires next, if any.
  public var next: TimerView?

  /// A view.
  public init(count: Int, next: TimerView?) {
    self.count = count
    self.next = next
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    count = try o.int("count")
    next = try o.optionalDecode("next")
  }

  public var json: JSON { writtenJSON }
}

extension TimersSummaryView: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    s.member("count", .int(count))
    s.member("next", next?.json ?? .null)
    s.closeObject()
  }
}
