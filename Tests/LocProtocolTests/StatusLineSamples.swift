import LocProtocol

@testable import LocCore

/// Status reports for the status line's tests (`StatusLineTests`): every member the status
/// object can have, and the sparse report of a daemon with no position.
enum StatusLineSamples {
  typealias S = WireSamples

  /// Every optional member present, with awkward strings.
  static func full() throws -> StatusReport {
    var r = try S.status()
    var failing = S.source
    failing.id = SourceID(1)
    failing.uri = "serial:/dev/ttyUSB0?baud=4800"
    failing.state = .failed
    failing.lastError = "no NMEA at 4800, 9600 or 38400 baud: \"junk\"\n"
    failing.fault = SourceFault(kind: .noNMEA, reason: "no NMEA at any baud", since: S.t.adding(seconds: -30))
    r.sources.append(failing)
    r.beacons = BeaconStatus(
      scanning: true, monitors: 2, ranging: 1, tracked: 7,
      counters: [Counter("sightings", 2140), Counter("unmatched", 12)])
    r.geoClue = GeoClueReport(
      state: .nameTaken, reason: "another program owns it", clients: 3, activeClients: 1, agents: [1000],
      counters: [Counter("clientsCreated", 4)])
    r.apps = AppSamples.report
    var counts = NetworkReport.Counts()
    counts.requests = 3
    counts.failed[.httpStatus] = 1
    r.network = NetworkReport(
      enabled: true, ipLookup: false, service: "https://api.beacondb.net/v1/geolocate", asking: true,
      lastAsked: S.t.adding(seconds: -12.3456), lastAnswered: nil, retryAt: S.t.adding(seconds: 120),
      lastProblem: "the service answered 503", counts: counts)
    r.staticFile = StaticFileState(path: "/etc/geolocation", problem: "line 2: the longitude is not a number")
    return r
  }

  /// No position at all: no fix, no sun, no manual location, the system's zone.
  static func empty() -> StatusReport {
    StatusReport(
      position: ResolvedPosition(tier: .none, position: nil, age: nil, reason: "no source has a fix yet"),
      fix: nil, sources: [],
      timeZone: ZoneReport(id: "Etc/UTC", origin: .system, offsetSeconds: 0, abbreviation: "UTC"),
      sun: nil, server: ServerCounters(), sessions: 0, startedAt: S.t, stateProblem: "state.json: not JSON",
      summary: "no position", timers: 0, nextTimer: nil, rejectedFixes: [], acquisition: nil)
  }
}
