import LocCore

/// `compass:`: the device's compass as iio-sensor-proxy gives it on the system bus
/// (net.hadess.SensorProxy, its interface net.hadess.SensorProxy.Compass at
/// /net/hadess/SensorProxy/Compass, the XML in the iio-sensor-proxy binary and its gtk-doc):
/// HasCompass says whether there is one, ClaimCompass starts the readings, CompassHeading
/// (degrees clockwise from magnetic north, -1 while unknown) changes by PropertiesChanged, and
/// ReleaseCompass lets the sensor sleep. The engine says when a session wants heading
/// (`setHeadingWanted`, from `Effect.compass`): the compass is claimed only then.
///
/// iio-sensor-proxy missing or restarting (NameOwnerChanged), no compass, a claim refused
/// (its bus policy lets only the `geoclue` user at the compass; locd ships a policy for its
/// own user, docs/SOURCES.md) and the bus lost are states in status, never an error that
/// stops locd. A heading is no position; it is logged at debug only all the same.
public final class CompassSource: FixSource {
  public let id: SourceID
  let loop: EventLoop
  let sink: SourceSink

  /// iio-sensor-proxy's bus name, the compass's object and interface.
  static let busName = "net.hadess.SensorProxy"
  static let path = "/net/hadess/SensorProxy/Compass"
  static let interface = "net.hadess.SensorProxy.Compass"
  /// How long after a failed ClaimCompass it is tried again.
  static let claimRetryMicroseconds: UInt64 = 10_000_000

  /// Where the source stands.
  enum Phase: Equatable {
    /// Not started, or stopped.
    case off
    /// No connection to the system bus; retried at the instant.
    case disconnected(String, retryAt: Instant)
    /// Connected; asking who owns net.hadess.SensorProxy.
    case lookingForProxy
    /// Nobody owns it: waiting for iio-sensor-proxy to start.
    case noProxy
    /// iio-sensor-proxy is there; the compass's properties are being read.
    case reading
    /// iio-sensor-proxy says there is no compass (HasCompass false); waiting for one.
    case noCompass
    /// The compass's properties could not be read (the bus policy refused locd, most
    /// likely); read again every `claimRetryMicroseconds`.
    case unreadable(String)
    /// There is a compass.
    case ready
  }

  var phase = Phase.off
  var link = SystemBusLink()
  /// Who owns the name, the generation of what it said, `stop()` called.
  var presence = BusPeerPresence()
  /// The claim: wanted by the engine, held, on its way, or failed.
  var claim = CompassClaim()
  var counters = CompassCounters()
  /// ClaimCompass again after a failure.
  var claimRetry: Timer?

  /// The compass source.
  public init(id: SourceID, loop: EventLoop, sink: SourceSink) {
    self.id = id
    self.loop = loop
    self.sink = sink
  }

  deinit { teardown() }

  var bus: BusConnection? { link.bus }
  var uri: String { SourceURI.compass.description }

  public func start() {
    guard bus == nil else { return }
    presence.stopped = false
    do {
      try connect()
    } catch {
      lost("cannot connect to the system bus: \(error)")
    }
  }

  public func stop() {
    link.cancelRetry()
    // Given back before the connection closes (iio-sensor-proxy also drops the claim of a
    // client that leaves the bus).
    if claim.held { release() }
    teardown()
    presence.stopped = true
    phase = .off
  }

  /// Claims the compass (true) or releases it (false), as the engine wants.
  public func setHeadingWanted(_ wanted: Bool) {
    guard wanted != claim.wanted else { return }
    claim.wanted = wanted
    claim.failure = nil
    sink.log(
      .debug,
      "source \(uri) heading \(wanted ? "wanted: claiming the compass" : "no longer wanted: releasing it")")
    reconcile()
    report()
  }

  func report() { sink.update(snapshot, false) }

  func log(_ level: LogLevel, _ message: String) { sink.log(level, "source \(uri) \(message)") }

  // MARK: The connection

  private func connect() throws(Errno) {
    do {
      let b = try link.connect(on: loop) { [weak self] in self?.lost("the system bus connection was lost") }
      try link.follow(
        Self.busName, on: b, path: Self.path,
        ownerChanged: { [unowned self] new in self.ownerChanged(to: new) },
        changed: { [unowned self] m in self.propertiesChanged(m) })
      counters.busConnections += 1
      link.backoff.connected(at: loop.monotonicMicroseconds)
      phase = .lookingForProxy
      let epoch = presence.epoch
      try b.askOwner(of: Self.busName) { [weak self] answer in
        guard let self, self.presence.epoch == epoch, self.phase == .lookingForProxy else { return }
        switch answer {
        case .success(let name) where !name.isEmpty: self.proxyArrived(name)
        case .success:
          self.counters.badMessages += 1
          self.proxyGone(initially: true)
        case .failure: self.proxyGone(initially: true)
        }
      }
    } catch {
      teardown()
      throw error
    }
    report()
  }

  private func ownerChanged(to new: String) {
    guard bus != nil else { return }
    let change = SystemBusLink.ownerChange(from: presence.owner, to: new)
    if change.left { proxyGone(initially: false) }
    if let arrived = change.arrived { proxyArrived(arrived) }
  }

  private func proxyArrived(_ name: String) {
    presence.arrived(name)
    counters.proxyAppeared += 1
    log(.info, "iio-sensor-proxy is on the system bus; reading its compass")
    phase = .reading
    readProperties()
    report()
  }

  /// iio-sensor-proxy left (or was never there): a claim it held is gone with it.
  private func proxyGone(initially: Bool) {
    if initially {
      log(.notice, "iio-sensor-proxy (\(Self.busName)) is not on the system bus; waiting for it")
    } else {
      counters.proxyVanished += 1
      log(.warning, "iio-sensor-proxy left the system bus; waiting for it to come back")
    }
    presence.gone()
    claim.lost()
    phase = .noProxy
    report()
  }

  /// The connection is gone: try again with backoff.
  func lost(_ why: String) {
    guard !presence.stopped else { return }
    teardown()
    let first: Bool
    if case .disconnected = phase { first = false } else { first = true }
    let at = link.retryAfterLoss(why, firstOfOutage: first, on: loop, log: log) { [weak self] in
      self?.start()
    }
    phase = .disconnected(why, retryAt: at)
    report()
  }

  private func teardown() {
    presence.gone()
    claim.lost()
    claimRetry?.cancel()
    claimRetry = nil
    link.close()
  }
}

/// Where the claim of the compass stands.
struct CompassClaim {
  /// Whether the engine wants heading (its last `Effect.compass`).
  var wanted = false
  /// Whether iio-sensor-proxy answered ClaimCompass and no ReleaseCompass was sent since.
  var held = false
  /// A ClaimCompass or ReleaseCompass on its way.
  var pending = false
  /// Why the last ClaimCompass failed, and when it is tried again (monotonic µs).
  var failure: (reason: String, retryAt: UInt64)?
  /// When the retry timer is armed for (a claim or a read of the properties).
  var retryAt: UInt64?

  /// The owner left, or the connection closed: nothing is held or on its way.
  mutating func lost() {
    held = false
    pending = false
  }
}

/// What a `compass:` source counted.
struct CompassCounters {
  var proxyAppeared = 0
  var proxyVanished = 0
  var claims = 0
  var releases = 0
  var claimErrors = 0
  /// GetAll calls refused (the bus policy, most likely).
  var readErrors = 0
  /// CompassHeading values taken, those that were no heading (-1: unknown), and those that
  /// came while the compass was not claimed.
  var headings = 0
  var unknownHeadings = 0
  var unclaimedHeadings = 0
  var badMessages = 0
  var busConnections = 0
}
