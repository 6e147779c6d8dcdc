/// What the engine asks the shell to do.
public enum Effect: Sendable, Hashable {
  /// Answer request `id` of `session`.
  case reply(SessionID, RequestID, Result<Response, RequestError>)
  /// Push an event to `session`.
  case push([SessionID], Notice, at: Instant)
  /// Arm (or re-arm) `timer` at `at` on the wall clock.
  case arm(EngineTimer, at: Instant)
  /// Disarm `timer`.
  case disarm(EngineTimer)
  /// Write the state file (atomically, mode 0600).
  case persist(StoredState)
  /// Send `STATUS=` to systemd.
  case notifyStatus(String)
  /// Re-read the configuration file, then feed `.configReloaded`.
  case reloadConfiguration(requestedBy: RequestRef?)
  /// Log a message. Messages above debug level never contain coordinates.
  case log(LogLevel, String)
  /// Write the timer store (`timers.json`, atomically, mode 0600).
  case persistTimers(TimerStore)
  /// Start a systemd unit for timer `timer` (StartUnit, mode "replace").
  case startUnit(String, timer: String)
  /// Run a program for timer `timer`, without a shell, as `user` (nil: the default the shell
  /// works out, `CommandUser=`'s), with `environment` (`LOCD_*` variables) added to a minimal one.
  case runCommand(argv: [String], user: String?, environment: [String], timer: String)
  /// Start an app's launch unit (StartUnit, mode "replace"): an event waits for it and it
  /// is not connected (docs/REGIONS.md).
  case launchApp(String, app: AppKey)
  /// Set the system time zone (org.freedesktop.timedate1 SetTimezone), then feed
  /// `systemZoneSet` with how it ended.
  case setSystemTimeZone(String)
  /// Write the apps store (the users' apps files, atomically, mode 0600): decisions,
  /// registrations and regions, no position. The content is `Engine.appsStore` as the engine
  /// holds it when the shell writes: the shell writes once for every list of a loop iteration
  /// (decision 0061), so the engine does not build a store no one writes.
  case persistApps
  /// Keep the receivers powered and reporting (true), or let them sleep (false): gpsd's
  /// watch off, serial devices closed, push sources' input ignored (docs/SOURCES.md).
  case receivers(active: Bool)
  /// Scan for beacons (true: some session monitors or ranges) or stop (false): BlueZ
  /// discovery follows need (docs/BEACONS.md).
  case beaconScanning(active: Bool)
  /// Claim the compass (true: a session that may have heading wants it) or release it
  /// (false): iio-sensor-proxy's ClaimCompass and ReleaseCompass (docs/SOURCES.md).
  case compass(claimed: Bool)
  /// Assemble skies (true: a session reads satellites, decision 0069) or only fixes
  /// (false); the shell adds its faces' readers before it tells the sources.
  case skies(wanted: Bool)
  /// Send this lookup to the geolocation service at `url` (POST, JSON), giving up after
  /// `timeout`; answer with `geolocateAnswered`. An IP-only query is not sent while a VPN
  /// carries the default route (the shell answers `skipped`).
  case geolocate(GeolocateQuery, url: String, timeout: Duration)
  /// Ask the Wi-Fi devices to scan and report what they see (`wifiScanned`), once each scan
  /// has ended, or after `wait` where its end is not signalled.
  case scanWifi(wait: Duration)
  /// Follow what the Wi-Fi devices publish (true: NetworkManager's AccessPointAdded and
  /// AccessPointRemoved, its LastScan and ActiveAccessPoint; wpa_supplicant's BSSAdded,
  /// BSSRemoved, ScanDone and CurrentBSS), reading the access points after each change
  /// (`wifiPublished`) without asking for a scan; or stop (false). Decision 0066.
  case followWifi(Bool)
}

/// Timers the engine asks the shell to arm (one of each at a time).
public enum EngineTimer: Hashable, Sendable, CaseIterable {
  /// The current fix stops being fresh.
  case freshness
  /// A throttled systemd STATUS= update is due.
  case statusRefresh
  /// The earliest user timer deadline.
  case timers
  /// The next local midnight: the solar days move on.
  case localMidnight
  /// The zone's next change of UTC offset (daylight-saving transition).
  case zoneTransition
  /// The current acquisition attempt gives up.
  case acquisitionTimeout
  /// The next periodic acquisition (or retry after a timeout).
  case acquisitionRefresh
  /// The earliest `locate` request is due to be answered with what there is.
  case locateDeadline
  /// The apps machines' earliest deadline: a grace window, a prompt, a waiting event.
  case apps
  /// Beacon monitoring or ranging needs a tick (`BeaconMachine.nextDeadline`).
  case beacons
  /// A region's dwell time is up (`RegionsMachine.nextDeadline`).
  case regions
  /// The next fix regions or visits could need (`RegionsMachine.hint`): acquisition starts.
  case regionsFix
  /// A network lookup held back by the minimum interval or the backoff may go out.
  case networkLookup
  /// While following the Wi-Fi scene, the devices published nothing for `RescanAfter=`: a
  /// scan of locd's own is due.
  case wifiRescan
  /// A refused or failed call setting the system time zone is due to be made again.
  case systemZone
  /// A followed light/dark schedule's next transition (or the end of an override).
  case lightDark
  /// A `sky` request's wait for skies ends, or its window of assembled skies (decision 0069).
  case skies
}

extension Effect {
  /// Whether the effect writes a state file. An event's list carries these ahead of every
  /// effect that `acknowledges`, and the shell sends nothing that acknowledges before the
  /// files its loop iteration changed are written and synced (issue 28: kill -9 right after
  /// a `change-app` reply lost the change in 43 of 100 rounds while apps.json was written
  /// after the reply; issue 40: region registrations waited 5 s; decision 0061).
  public var writesStateFile: Bool {
    switch self {
    case .persist, .persistTimers, .persistApps: return true
    default: return false
    }
  }

  /// Whether the effect tells a client something a state file could hold: every reply and
  /// every event but the position stream (`location`), which reports a fix, not a change
  /// locd stores, and is the hot path (it does not wait for the disk), and the compass's
  /// (`heading`).
  public var acknowledges: Bool {
    switch self {
    case .reply: return true
    case .push(_, let notice, _):
      switch notice {
      // The compass's readings are a stream too, of no stored state.
      case .location, .heading: return false
      default: return true
      }
    default: return false
    }
  }
}
