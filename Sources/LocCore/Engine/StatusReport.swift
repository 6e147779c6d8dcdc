/// The time zone in effect and where it came from.
public struct ZoneReport: Sendable, Hashable {
  /// How the zone in effect was chosen.
  public enum Origin: String, Sendable, Hashable {
    /// From the position (the boundary data, with hysteresis for fixes).
    case position
    /// `TimeZone=` in locd.conf, for want of a position-derived zone.
    case configured
    /// The system's own zone, for want of anything better.
    case system
  }

  /// IANA zone name, e.g. "Europe/Oslo".
  public var id: String
  /// How it was chosen.
  public var origin: Origin
  /// UTC offset now, in seconds east, if the zone's rules are known.
  public var offsetSeconds: Int?
  /// Abbreviation now, e.g. "CET", if known.
  public var abbreviation: String?
  /// Why this zone, in words (hysteresis state near a border), if there is more to say.
  public var reason: String? = nil
  /// The boundary data's estimate of the distance to the nearest zone border, when it is
  /// close (under 10 km) and the data can tell.
  public var borderDistance: Meters? = nil

  /// A report; offset and abbreviation come from the zone's rules when known.
  public init(
    id: String, origin: Origin, offsetSeconds: Int? = nil, abbreviation: String? = nil, reason: String? = nil
  ) {
    self.id = id
    self.origin = origin
    self.offsetSeconds = offsetSeconds
    self.abbreviation = abbreviation
    self.reason = reason
  }
}

/// Today's sunrise and sunset at the resolved position, local day of the zone in effect.
public struct SunReport: Sendable, Hashable {
  /// The local date these belong to.
  public var date: CivilDate
  /// Sunrise, or nil (see `note`).
  public var sunrise: Instant?
  /// Sunset, or nil (see `note`).
  public var sunset: Instant?
  /// Why one is missing (polar day, polar night, ...).
  public var note: String?

  /// Today's (the local day of `rules` at `now`) sunrise and sunset at `coordinate`.
  public init(today coordinate: Coordinate, in rules: ZoneRules, at now: Instant) {
    date = rules.localDate(at: now)
    let day = SolarCalculator(coordinate: coordinate).day(date, in: rules, events: [.sunrise, .sunset])
    var notes: [String] = []
    for event in [SolarEvent.sunrise, .sunset] {
      if case .never(let why)? = day[event] {
        let name = event == .sunrise ? "sunrise" : "sunset"
        switch why {
        case .polarDay: notes.append("no \(name) today: the sun stays up (polar day)")
        case .polarNight: notes.append("no \(name) today: the sun stays down (polar night)")
        case .otherDay: notes.append("no \(name) in this local day (it falls just outside midnight)")
        }
      }
    }
    sunrise = day[.sunrise]?.instant
    sunset = day[.sunset]?.instant
    note = notes.isEmpty ? nil : notes.joined(separator: "; ")
  }
}

/// The latest fix's quality.
public struct FixSummary: Sendable, Hashable {
  /// Fix dimension.
  public var mode: FixMode
  /// How it was obtained.
  public var quality: FixQuality?
  /// Satellites used.
  public var satellitesUsed: Int?
  /// Satellites in view.
  public var satellitesInView: Int?
  /// Horizontal accuracy estimate.
  public var accuracy: Meters?
  /// Horizontal dilution of precision.
  public var hdop: Double?
  /// Receiver time of the fix.
  public var time: Instant
  /// Altitude above mean sea level, if the receiver gave one.
  public var altitudeMSL: Meters? = nil
  /// Speed over ground, if the receiver gave one.
  public var speed: MetersPerSecond? = nil
  /// Course over ground, degrees from true north, if the receiver gave one.
  public var course: Degrees? = nil
}

/// Everything `locctl status` shows.
public struct StatusReport: Sendable, Hashable {
  /// The resolver's answer.
  public var position: ResolvedPosition
  /// The manual location, when one is set (also while a fix is in use).
  public var manual: Position? = nil
  /// The latest accepted fix's quality, if any fix came in this run.
  public var fix: FixSummary?
  /// Every source with its state and counters (as the shell completes them).
  public var sources: [SourceSnapshot]
  /// The time zone in effect.
  public var timeZone: ZoneReport
  /// The system time zone as locd sets it, while `[TimeZone] SetSystemTimeZone=yes`.
  public var systemZone: SystemZoneReport? = nil
  /// Today's sun, when a position and the solar engine are available.
  public var sun: SunReport?
  /// Socket server counters. The engine counts only `permissionDenied` (it decides those);
  /// the shell fills in the rest when it sends the reply (`completed(server:sources:)`).
  public var server: ServerCounters
  /// Clients connected (after hello).
  public var sessions: Int
  /// When the daemon started.
  public var startedAt: Instant
  /// A problem with the state file found at start, if any.
  public var stateProblem: String?
  /// The one-line summary also sent as systemd STATUS=.
  public var summary: String
  /// Timers defined.
  public var timers: Int = 0
  /// The timer that fires next, if any.
  public var nextTimer: TimerStatus? = nil
  /// Fixes dropped by acceptance, by reason (no-fix, old, implausible-jump, inside-accuracy).
  public var rejectedFixes: [Counter] = []
  /// When fixes are wanted: phase, reasons, last outcome, next refresh.
  public var acquisition: AcquisitionReport? = nil
  /// Apps: who uses the location now, agents, counters.
  public var apps: AppsReport? = nil
  /// Per source: whether its fixes are being dropped and why, and its time against the clock.
  public var sourceFixes: [SourceID: SourceFixReport] = [:]
  /// Beacon monitoring and ranging: scanning, requests, counters.
  public var beacons: BeaconStatus? = nil
  /// Regions and visits (nil: none monitored).
  public var regions: RegionsReport? = nil
  /// Heading: sessions that want it, whether the compass is claimed, counters.
  public var heading: HeadingReport? = nil
  /// Light/dark schedules: users, followers, overrides, counters (nil: nobody asked yet).
  public var lightDark: LightDarkReport? = nil
  /// With `locd --clock replay`, the simulation (the shell fills it in); nil otherwise.
  public var simulation: SimulationReport? = nil
  /// With `[GeoClue] Enable=yes`, the GeoClue2 face (the shell fills it in); nil otherwise.
  public var geoClue: GeoClueReport? = nil
  /// The samples sent to chrony, while `[Time] ChronySocket=` names a socket (the shell's).
  public var chrony: ChronyReport? = nil
  /// The gpsd-compatible face, while `[Gpsd] Enable=yes` (the shell's).
  public var gpsd: GpsdFaceReport? = nil
  /// The NMEA pseudo-terminal, while `[NMEAOut] Enable=yes` (the shell's).
  public var nmeaOut: NMEAOutReport? = nil
  /// The state directory's files: refused when read, writes refused or failed (the shell
  /// fills it in).
  public var stateFiles: [Counter] = []
  /// Writes of the state directory's files failing: since when and why (nil: every change
  /// is on disk; the shell fills it in).
  public var stateFilesFault: StateFilesFault? = nil
  /// The engine's now when the report was made: the clock every time in it is on (simulated
  /// under `--clock replay`); nil only in reports made outside the engine.
  public var now: Instant? = nil
  /// The latest sky's summary (of whichever source reported one last); nil before any, and
  /// while skies are not assembled (the shell drops it then: it would be an old sky).
  public var satellites: Sky.Summary? = nil
  /// Whether skies are assembled and who reads them (the engine's readers; the shell adds
  /// its faces' and says whether the sources assemble them).
  public var skies: SkiesReport? = nil
  /// The static location file as last read (nil: none configured).
  public var staticFile: StaticFileState? = nil
  /// Network positioning: on or off, the service, when it asked and how often.
  public var network: NetworkReport? = nil
  /// Values from outside that lay out of bounds since start (nil: none yet).
  public var outOfBounds: OutOfBoundsReport? = nil

  /// The report with the parts only the shell knows: the socket server's counters (all but
  /// `permissionDenied`, which the engine counts) and each running source as it is now (the
  /// engine learns of a source when its state changes, not at every sentence it counts),
  /// with the fault as the engine dated it (the shell reports each beginning and end).
  public func completed(server counters: ServerCounters, sources live: [SourceSnapshot]) -> StatusReport {
    var report = self
    var server = counters
    server.permissionDenied = self.server.permissionDenied
    report.server = server
    for i in report.sources.indices {
      guard var s = live.first(where: { $0.id == report.sources[i].id }) else { continue }
      s.fault = report.sources[i].fault
      report.sources[i] = s
    }
    return report
  }
}

/// Beacon monitoring and ranging in `status`: whether scanning is needed, how many requests
/// and beacons are live, and what was counted. No identity: those are location data.
public struct BeaconStatus: Sendable, Hashable {
  /// Whether some session monitors or ranges (so beacon sources scan).
  public var scanning: Bool
  /// Region monitors live.
  public var monitors: Int
  /// Ranging requests live.
  public var ranging: Int
  /// Transmitters remembered for ranging now.
  public var tracked: Int
  /// `sightings`, `unmatched`, `evictedBeacons`, `refused`, `clockWentBack`,
  /// `refusedPerSession`, `refusedApps`, `notDeliveredToApps`, in that order.
  public var counters: [Counter]

  /// A report.
  public init(scanning: Bool, monitors: Int, ranging: Int, tracked: Int, counters: [Counter]) {
    self.scanning = scanning
    self.monitors = monitors
    self.ranging = ranging
    self.tracked = tracked
    self.counters = counters
  }
}
