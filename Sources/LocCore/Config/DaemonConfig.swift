/// Everything locd can be configured with, with its defaults (locd.conf(5)).
public struct DaemonConfig: ConfigTable, Equatable {
  /// Path of the control socket.
  public var socketPath = "/run/locd/locd.sock"
  /// Group owning the socket; `nil` keeps the daemon's group.
  public var socketGroup: String? = "locd"
  /// Permission bits of the socket: every local user may connect; what each may do is
  /// decided inside (access levels, app authorization).
  public var socketMode: UInt32 = 0o666
  /// Members of this group may read state (root and the daemon's own uid always may).
  /// Defaults to the socket group.
  public var readGroup: String? = nil
  /// Members of this group may change state (set-location, reload, timers); root always may.
  public var adminGroup: String? = nil
  /// Where the last-known position file lives.
  public var stateDirectory = "/var/lib/locd"
  /// Fix sources; empty means `SourceURI.defaultSource` (`effectiveSources`).
  public var sources: [SourceURI] = []
  /// Users (names or uids) whose peers the listening sources admit besides root and locd;
  /// with `allowGroups`, empty: any local user that can connect.
  public var allowUsers: [String] = []
  /// Groups (names or gids) whose members' peers the listening sources admit.
  public var allowGroups: [String] = []
  /// Messages above this level are not logged.
  public var logLevel = LogLevel.info
  /// A fix older than this (since it was received) is no longer fresh.
  public var freshFor: Duration = .seconds(10)
  /// A move farther than this (plus the accuracy radii) is significant.
  public var significantDistance: Meters = 1000
  /// Zone used when none can be derived from the position (`nil`: the system zone).
  public var timeZone: String? = nil
  /// `[Position] StaticFile=`: the static location file in geoclue's format (nil: none).
  public var staticFile: String? = DaemonConfig.defaultStaticFile
  /// Where geoclue and locd look for the static file unless told otherwise.
  public static let defaultStaticFile = "/etc/geolocation"
  /// `[Network]`: the geolocation service (off by default).
  public var network = NetworkSettings()
  /// `[Modem] SuplServer=`: the SUPL server (HOST:PORT) a `modem:` source's modems are given
  /// for A-GPS with SetSuplServer, under `[Network] Enable=yes` (nil: none; docs/SOURCES.md).
  public var suplServer: String? = nil
  /// Most clients connected at once; more are answered `too-many-clients` and closed.
  public var maxClients = 2048
  /// Of `maxClients`, the slots kept for peers with admin access, so root can always look.
  public var reservedAdminClients = 16
  /// Most connections of one uid below admin access at once.
  public var maxClientsPerUser = 64
  /// A session that can do nothing (no access, so no request and no subscription) is closed
  /// this long after its hello (or after a reload took its access away).
  public var idleTimeout: Duration = .seconds(60)
  /// Longest request line in bytes.
  public var maxRequestBytes = 65536
  /// Most bytes queued for a client that does not read; past it the client is dropped.
  public var maxQueuedBytesPerClient = 1 << 20
  /// Most bytes queued for all clients together; past it the biggest queues are dropped.
  public var maxQueuedBytesTotal = 64 << 20
  /// A client must complete the hello within this time.
  public var handshakeTimeout: Duration = .seconds(10)
  /// With `--clock replay`, a client over its queue limit pauses the replay instead of being
  /// dropped; one that then reads nothing for this long is dropped after all.
  public var replayStallTimeout: Duration = .seconds(60)
  /// Where timer files (`NAME.timer`) are read from.
  public var timersDirectory = "/etc/locd/timers.d"
  /// A timer occurrence handled later than this after its deadline was missed (machine
  /// asleep, locd stopped, clock stepped over it) and follows the timer's `Missed=` policy.
  public var missedAfter: Duration = .seconds(60)
  /// The user timer commands run as unless their file says `User=`; nil: `nobody` when locd
  /// can switch users (root with CAP_SETUID and CAP_SETGID), else locd's own user (the
  /// shipped unit runs locd as `locd` without capabilities).
  public var commandUser: String? = nil
  /// Most timers (files and runtime together).
  public var maxTimers = 1024
  /// What it takes to adopt a new time zone from fixes.
  public var zoneSwitch = ZoneHysteresis.Settings()
  /// Set the system time zone (timedated) when the zone from the position changes.
  public var setSystemTimeZone = false
  /// When locd wants fixes (`[Acquisition]`): on demand (default) or continuously.
  public var acquisition = Acquisition.Policy()
  /// Apps and authorization (`[Apps]`).
  public var apps = AppsSettings()
  /// Region monitoring and visits (`[Regions]`).
  public var regions = RegionsSettings()
  /// Serve the GeoClue2 D-Bus interface on the system bus (`[GeoClue] Enable=`; off by default).
  public var geoClueEnabled = false
  /// The GeoClue2 face's limits (`[GeoClue]`).
  public var geoClue = GeoClueSettings()
  /// `[Time] ChronySocket=`: the socket of chrony's SOCK refclock that each live receiver's
  /// fix sends a time sample to; nil: none are sent (docs/TIME.md).
  public var chronySocket: String? = nil
  /// `[Time] MaxDisagreement=`: a sample further than this from the system clock, while the
  /// kernel says it is synchronised, is not sent; nil (`off`): the receiver's time goes
  /// whatever the clock says, for a machine with no other clock (decision 0060).
  public var maxDisagreement: Duration? = ClockSampleRule.defaultMaxDisagreement
  /// The gpsd-compatible face (`[Gpsd]`; off by default, docs/GPSD.md).
  public var gpsd = GpsdSettings()
  /// The NMEA pseudo-terminal (`[NMEAOut]`; off by default, docs/NMEAOUT.md).
  public var nmeaOut = NMEAOutSettings()

  /// The defaults.
  public init() {}

  /// The sources in effect: those configured; else the default source (gpsd on this machine),
  /// unless one of locd's own faces takes its address (`defaultSourceSetAside`): then none.
  public var effectiveSources: [SourceURI] {
    guard sources.isEmpty else { return sources }
    return defaultSourceSetAside == nil ? [SourceURI.defaultSource] : []
  }
  /// Whether the one source in effect is the default one, used because none is configured:
  /// it stands for a gpsd that may not be there yet, so nothing listening at its address is
  /// "waiting", not a failure (`SourceSnapshot.asDefaultSource`), and gpsd is looked for when
  /// its socket appears. A configured source, even the same URI, is shown as it is.
  public var usesDefaultSource: Bool { sources.isEmpty && defaultSourceSetAside == nil }
  /// The read group in effect.
  public var effectiveReadGroup: String? { readGroup ?? socketGroup }

  /// A problem found while applying a configuration file.
  public typealias Diagnostic = ConfigDiagnostic

  /// The configuration in effect as a locd.conf, for `locd --check-config`: every key of the
  /// table in its section, those at their default commented out (as the shipped example has
  /// them), the others set.
  public var effectiveSettings: String {
    var out = ""
    var section = ""
    for key in DaemonConfig.keys {
      if key.section != section {
        section = key.section
        out += (out.isEmpty ? "" : "\n") + "[\(section)]\n"
      }
      let values = key.values(in: self)
      let isDefault = values == key.defaults
      for value in values.isEmpty ? [""] : values { out += (isDefault ? "#" : "") + "\(key.name)=\(value)\n" }
    }
    return out
  }

  /// Parses `1km`, `500m`, `2.5km`, `250` (metres): a decimal number (digits and at most one
  /// point, no sign, no exponent) and an optional unit.
  public static func parseDistance(_ text: String) -> Meters? {
    var t = Substring(text)
    var scale = 1.0
    if t.hasSuffix("km") {
      scale = 1000
      t = t.dropLast(2)
    } else if t.hasSuffix("m") {
      t = t.dropLast()
    }
    t = t.trimmingSpaces()
    guard !t.isEmpty, t.allSatisfy({ ($0.isASCII && $0.isNumber) || $0 == "." }), let v = Double(t),
      v.isFinite
    else { return nil }
    return Meters(v * scale)
  }

  /// `50m`, `1km`, `2.5km`, `0.5m`: the shortest text `parseDistance` reads back the same.
  public static func formatDistance(_ m: Meters) -> String {
    func number(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v) }
    let km = m.value / 1000
    if m.value >= 1000, km * 1000 == m.value, number(km).count <= number(m.value).count {
      return number(km) + "km"
    }
    return number(m.value) + "m"
  }
}
