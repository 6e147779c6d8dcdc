import LocCore

/// A running source of fixes (replay file, gpsd, NMEA socket, serial line) or of beacon
/// advertisements (a btsnoop replay, BlueZ). Sources live on the event loop and report through
/// their sink; they retry on their own.
public protocol FixSource: AnyObject {
  /// Which configured source this is.
  var id: SourceID { get }
  /// State and counters now.
  var snapshot: SourceSnapshot { get }
  /// Opens and starts reading.
  func start()
  /// Closes everything; no more reports.
  func stop()
  /// Wakes the receiver (true) or lets it sleep (false) as acquisition wants, before or
  /// after `start`: gpsd's watch goes off, a serial device is closed, a push source ignores
  /// its input; no retry timer runs while asleep. The default does nothing (a replay powers
  /// no receiver and is the simulated clock itself).
  func setActive(_ active: Bool)
  /// Scans for beacons (true) or stops (false) as monitors and ranging requests need; the
  /// default does nothing (fix sources, and a capture, which plays whatever is asked).
  func setScanning(_ scanning: Bool)
  /// Claims the compass (true: a session wants heading) or releases it (false); the default
  /// does nothing (every source but `compass:`).
  func setHeadingWanted(_ wanted: Bool)
  /// Assembles skies (true: someone reads satellites, decision 0069) or only fixes (false),
  /// before or after `start`; the default does nothing (sources that decode no satellites).
  func setSkiesWanted(_ wanted: Bool)
}

extension FixSource {
  public func setActive(_ active: Bool) {}
  public func setScanning(_ scanning: Bool) {}
  public func setHeadingWanted(_ wanted: Bool) {}
  public func setSkiesWanted(_ wanted: Bool) {}
}

/// Where sources report.
public struct SourceSink {
  /// A fix was decoded, from bytes that the writer the source learned wrote (the device's
  /// owner, the server's, the peer's), or nil where the source's kind alone says who writes
  /// (`SourceURI.writerBasis`): what decides whether its time may go to chrony. The last
  /// argument is when the cycle's first sentence arrived (this machine's wall clock), where
  /// the source knows where its cycles begin: chrony's samples are stamped with it (decision
  /// 0064); nil sends no sample.
  public var fix: (Fix, SourceID, FixWriter?, Instant?) -> Void
  /// A receiver cycle's satellites were decoded (never logged above debug).
  public var sky: (Sky, SourceID) -> Void
  /// State or counters changed; `restarted` marks a new stream (fix times may start over).
  public var update: (SourceSnapshot, Bool) -> Void
  /// A log line (never coordinates above debug).
  public var log: (LogLevel, String) -> Void
  /// A beacon advertisement was heard (beacon sources only; never logged above debug).
  public var beacon: (BeaconAdvertisement, SourceID) -> Void
  /// A beacon was heard now, without the advertisement's bytes (BlueZ reports properties,
  /// not PDUs); never logged above debug.
  public var sighting: (BeaconSighting, SourceID) -> Void
  /// A line of the receiver's, as it came (the gpsd face and the NMEA output pass on the
  /// checked ones, `RelayedSentence`; never logged above debug).
  public var sentence: (UnsafeRawBufferPointer, SourceID) -> Void
  /// A compass heading, degrees clockwise from magnetic north (`compass:` only).
  public var heading: (Double, SourceID) -> Void
  /// Whom the listening sources admit (`AllowUsers=`, `AllowGroups=` resolved).
  public var admission: PeerAdmission
  /// A modem source's serving cells now (none: unregistered or gone); never logged above debug.
  public var cells: ([CellTower], SourceID) -> Void = { _, _ in }
  /// What the daemon's settings and readers are now, asked by a source when it acts.
  public var now = Now()

  /// What a source asks of the daemon when it acts (each read at that moment: a reload or a
  /// new reader changes it between two calls).
  public struct Now {
    /// Whether network positioning is on (`[Network] Enable=`): only then may a source read
    /// what would go to the geolocation service (cells) or fetch assistance data.
    public var networkOn: () -> Bool = { false }
    /// `[Modem] SuplServer=` (nil: none).
    public var suplServer: () -> String? = { nil }
    /// Whether anyone reads satellites (decision 0069): what a decoder a source makes later
    /// (a replay's next round, a listener's new peer, a modem found) starts with; a change
    /// reaches the decoders that exist through `FixSource.setSkiesWanted`.
    public var skiesWanted: () -> Bool = { true }

    public init() {}
  }

  /// A sink; `sky` defaults to dropping skies, `admission` defaults to no list, root and this process's uid privileged.
  public init(
    fix: @escaping (Fix, SourceID, FixWriter?, Instant?) -> Void,
    update: @escaping (SourceSnapshot, Bool) -> Void,
    log: @escaping (LogLevel, String) -> Void,
    beacon: @escaping (BeaconAdvertisement, SourceID) -> Void = { _, _ in },
    sighting: @escaping (BeaconSighting, SourceID) -> Void = { _, _ in },
    sky: @escaping (Sky, SourceID) -> Void = { _, _ in },
    sentence: @escaping (UnsafeRawBufferPointer, SourceID) -> Void = { _, _ in },
    heading: @escaping (Double, SourceID) -> Void = { _, _ in },
    admission: PeerAdmission = PeerAdmission(daemonUID: CurrentProcess.userID)
  ) {
    self.fix = fix
    self.sky = sky
    self.sentence = sentence
    self.heading = heading
    self.update = update
    self.log = log
    self.beacon = beacon
    self.sighting = sighting
    self.admission = admission
  }
}
