/// Something that happened, fed to `Engine.handle(_:at:)`.
public enum EngineEvent: Sendable {
  /// The daemon started with this state file content (or a problem reading it).
  case started(StoredState?, stateProblem: String?)
  /// A source decoded a fix.
  case fixDecoded(Fix, source: SourceID)
  /// The static file at `path` was read at start or after it changed: `contents` its text
  /// (nil: there is no such file), or `problem` why it could not be read.
  case staticFileRead(path: String, contents: String?, problem: String?)
  /// The geolocation lookup the engine asked for (`Effect.geolocate`) ended.
  case geolocateAnswered(GeolocateOutcome)
  /// The Wi-Fi scan the engine asked for (`Effect.scanWifi`) came back: the access points
  /// seen (none, with `problem`, when there is no scanner to ask), and how many more were
  /// published than the shell reads (`WifiAccessPoint.scanLimit`).
  case wifiScanned([WifiAccessPoint], problem: String?, unread: Int = 0)
  /// While the engine follows the Wi-Fi scene (`Effect.followWifi`): the devices published
  /// a change (access points came or went, the connected one changed, a scan another
  /// program asked for ended), and these are the access points they publish now, read
  /// without asking for a scan (`unread` as for a scan).
  case wifiPublished([WifiAccessPoint], unread: Int = 0)
  /// A modem source's serving cells now (ModemManager's 3GPP location; none when it has
  /// none): the cells of the next geolocation lookups, while `[Network] Enable=yes`.
  case cellsSeen([CellTower], source: SourceID)
  /// A source's receiver reported the satellites it sees (one cycle's sky).
  case skyDecoded(Sky, source: SourceID)
  /// A source changed state or counters. `restarted` marks a new stream (reconnect,
  /// replay loop): fix times may start over.
  case sourceUpdated(SourceSnapshot, restarted: Bool)
  /// A compass source measured a heading: degrees clockwise from magnetic north.
  case headingMeasured(Double, source: SourceID)
  /// A source heard a beacon advertisement (`now` is when: the capture's time in a replay).
  case beaconHeard(BeaconSighting, source: SourceID)
  /// A client said hello: it becomes a session (a plain one, or an app's) and `reply`, if
  /// given, is answered with the hello's result, or with why it may not (its claim
  /// contradicts the kernel, or its user has too many apps).
  case sessionOpened(SessionID, SessionHello, reply: RequestID?)
  /// A client sent a request.
  case requestReceived(SessionID, RequestID, Request)
  /// An open session's access is now this (the shell re-decided it after a reload).
  case accessChanged(SessionID, AccessLevel, reason: AccessChangeReason)
  /// A client went away (or was dropped).
  case sessionClosed(SessionID)
  /// A timer the engine armed fired.
  case timerFired(EngineTimer)
  /// The configuration was reloaded (by SIGHUP or a `reload` request): `result` is the new
  /// config or the problems that kept the old one.
  case configReloaded(Result<DaemonConfig, ReloadFailure>, requestedBy: RequestRef?)
  /// The timer files were (re)loaded: the timers they define and the problems of those that
  /// could not be; at start also the timer store of the previous run (`store`).
  case timersLoaded([TimerDefinition], problems: [String], store: TimerStore?)
  /// The wall clock was stepped (the shell saw TFD_TIMER_CANCEL_ON_SET fire); `now` is the new time.
  case clockStepped
  /// The machine resumed after sleeping about `sleptFor`, if known.
  case resumed(sleptFor: Duration?)
  /// The time-zone data was read again (tzdata changed on disk, or a reload): what the zones
  /// hold now. Parsed rules are forgotten and everything is planned again.
  case timeZoneDataChanged(ZoneCatalog)
  /// The replay of `locd --clock replay` reached its end (the shell's report of it).
  case simulationFinished(SimulationReport)
  /// A timer's action ended: its command exited (or could not start), or the unit start it
  /// asked for was answered. `detail` says how, in words.
  case timerActionEnded(timer: String, succeeded: Bool, detail: String)
  /// The shell's call setting the system time zone to `zone` (`Effect.setSystemTimeZone`)
  /// ended; `problem` says why it failed (timedated's or polkit's words), nil when it worked.
  case systemZoneSet(String, problem: String?)
  /// The daemon is stopping.
  case stopping
  /// apps.json as read at start (nil: none yet, or unusable because of `problem`; the
  /// shell set an unusable file aside).
  case appsLoaded(AppStore?, problem: String?)
  /// The policy files of `[Apps] PolicyDirectory=` were read (at start and on every reload),
  /// with the problems of those that could not be used.
  case appPolicyLoaded(AppPolicy, problems: [String])
  /// An agent of another face decided for an app (GeoClue's AuthorizeApp answered for an app
  /// without a decision): remembered as `locctl apps grant|deny` would, by `agent`.
  case appDecided(AppKey, AppChange)

  /// A plain session opened without a hello to answer (`client` is its name), as tests and
  /// benchmarks open them.
  public static func sessionOpened(_ id: SessionID, _ peer: Peer, _ access: AccessLevel, client: String?)
    -> EngineEvent
  {
    .sessionOpened(id, SessionHello(peer: peer, access: access, client: client), reply: nil)
  }
}

/// Why a reload kept the old configuration.
public struct ReloadFailure: Error, Sendable, Hashable {
  /// The problems, each `file:line: message`.
  public var problems: [String]
  /// A failure.
  public init(problems: [String]) { self.problems = problems }
}

extension EngineEvent {
  /// The request this event is (nil: not a request): its reply is what acknowledges the
  /// change the event's effect list stores.
  public var request: RequestRef? {
    guard case .requestReceived(let session, let id, _) = self else { return nil }
    return RequestRef(session: session, id: id)
  }

  /// Whether the engine ends this event with its bookkeeping (due timers, acquisition, the
  /// STATUS= line): not after a request that only reads (`Request.onlyReads`) nor after a
  /// compass reading, which change nothing that bookkeeping looks at.
  var needsBookkeeping: Bool {
    switch self {
    case .requestReceived(_, _, let request): return !request.onlyReads
    case .headingMeasured: return false
    default: return true
    }
  }
}
