import LocCore

/// `bluez:` (BlueZ's default adapter) or `bluez:hciN`: iBeacon and AltBeacon advertisements
/// as BlueZ reports them on the system bus (org.bluez, BlueZ's doc/org.bluez.Device.rst and
/// org.bluez.Adapter.rst). The objects come from GetManagedObjects, then InterfacesAdded,
/// InterfacesRemoved and PropertiesChanged of org.bluez.Device1 (Address, RSSI,
/// ManufacturerData); `BlueZDeviceTable` turns them into sightings. Discovery runs only while
/// the engine wants scanning (`setScanning`): SetDiscoveryFilter {Transport: le,
/// DuplicateData: true}, then StartDiscovery; StopDiscovery when no request is left.
///
/// BlueZ missing, restarting (NameOwnerChanged of org.bluez), the adapter going and coming
/// back, and the bus connection lost are states in status (`lastError` says which), never an
/// error that stops locd; each is recovered from when it ends. Nothing identifying is logged
/// above debug (docs/PRIVACY.md).
public final class BlueZSource: FixSource {
  public let id: SourceID
  /// The adapter asked for (`hci1`), or nil for the default one.
  let adapterName: String?
  let loop: EventLoop
  let sink: SourceSink
  let uri: String

  /// BlueZ's bus name and interfaces.
  static let busName = "org.bluez"
  static let adapterInterface = "org.bluez.Adapter1"
  static let deviceInterface = "org.bluez.Device1"
  /// How long to wait before trying StartDiscovery again after it failed (an adapter that is
  /// powered off says NotReady; powering it on also retries at once).
  static let discoveryRetryMicroseconds: UInt64 = 5_000_000

  /// Where the source stands.
  enum Phase: Equatable {
    /// Not started, or stopped.
    case off
    /// No connection to the system bus; retried at the instant.
    case disconnected(String, retryAt: Instant)
    /// Connected; asking who owns org.bluez.
    case lookingForBlueZ
    /// Nobody owns org.bluez: waiting for BlueZ to start.
    case noBlueZ
    /// BlueZ is there; its objects are being read.
    case readingObjects
    /// BlueZ is there but not the adapter (none at all, or not the one asked for).
    case noAdapter
    /// The adapter is there.
    case ready
  }

  var phase = Phase.off
  /// `stop()` was called: nothing is retried.
  var stopped = false
  var bus: BusConnection?
  var matches: [BusMatch] = []
  var reconnectTimer: Timer?
  var backoff = ReconnectBackoff()
  /// The unique name owning org.bluez; signals from anyone else are ignored.
  var owner: String?
  /// The adapter in use (`/org/bluez/hci0`).
  var adapterPath: String?
  /// Whether the adapter says it is powered.
  var adapterPowered = false
  /// Changes whenever BlueZ, the adapter or the connection changes: answers to calls made
  /// before are ignored.
  var epoch = 0
  var devices = BlueZDeviceTable()

  /// Whether the engine wants scanning.
  var scanningWanted = false
  /// Whether locd's discovery session is running (StartDiscovery succeeded, no stop since).
  var discovering = false
  /// A SetDiscoveryFilter, StartDiscovery or StopDiscovery is on its way.
  var callInFlight = false
  var discoveryRetry: Timer?
  /// The last discovery failure, shown while the adapter is there.
  var discoveryProblem: String?

  /// What happened, counted.
  struct Counters {
    var bluezAppeared = 0
    var bluezVanished = 0
    var adapterLost = 0
    var discoveryStarts = 0
    var discoveryStops = 0
    var discoveryErrors = 0
    var badMessages = 0
    var busConnections = 0
  }
  var counters = Counters()

  /// A BlueZ source for `adapter` (nil: the default adapter).
  public init(id: SourceID, adapter: String?, loop: EventLoop, sink: SourceSink) {
    self.id = id
    self.adapterName = adapter
    self.loop = loop
    self.sink = sink
    self.uri = SourceURI.bluez(adapter: adapter).description
  }

  deinit { teardown() }

  /// The adapter's name for messages: `hci1`, or "the default adapter".
  var adapterText: String { adapterName ?? "a Bluetooth adapter" }

  public var snapshot: SourceSnapshot {
    let state: SourceState
    var problem: String? = nil
    switch phase {
    case .off, .lookingForBlueZ, .readingObjects: state = .starting
    case .disconnected(let why, let at):
      state = .reconnecting(retryAt: at)
      problem = why
    case .noBlueZ:
      state = .starting
      problem = "BlueZ (org.bluez) is not on the system bus; waiting for it (is bluetooth.service running?)"
    case .noAdapter:
      state = .starting
      problem = "BlueZ has no \(adapterName.map { "adapter \($0)" } ?? "Bluetooth adapter"); waiting for it"
    case .ready:
      state = .connected
      problem = discoveryProblem
    }
    let d = devices.counters
    let c = counters
    return SourceSnapshot(
      id: id, uri: uri, state: state,
      counters: [
        Counter("bluez", owner == nil ? 0 : 1), Counter("adapter", adapterPath == nil ? 0 : 1),
        Counter("discovering", discovering ? 1 : 0), Counter("devices", devices.count),
        Counter("beaconDevices", devices.beaconCount), Counter("advertisements", d.sightings),
        Counter("ibeacon", d.iBeacons), Counter("altbeacon", d.altBeacons), Counter("other", d.other),
        Counter("malformedBeacons", d.malformed), Counter("devicesDropped", d.devicesDropped),
        Counter("unknownDevices", d.unknownDevices), Counter("withoutAddress", d.withoutAddress),
        Counter("implausibleRSSI", d.implausibleRSSI),
        Counter("badMessages", c.badMessages), Counter("bluezAppeared", c.bluezAppeared),
        Counter("bluezVanished", c.bluezVanished), Counter("adapterLost", c.adapterLost),
        Counter("discoveryStarts", c.discoveryStarts), Counter("discoveryStops", c.discoveryStops),
        Counter("discoveryErrors", c.discoveryErrors), Counter("busConnections", c.busConnections),
      ], lastError: problem, givesFixes: false)
  }

  public func start() {
    guard bus == nil else { return }
    stopped = false
    do {
      try connect()
    } catch {
      lost("cannot connect to the system bus: \(error)")
    }
  }

  public func stop() {
    reconnectTimer?.cancel()
    reconnectTimer = nil
    if discovering, let bus, let adapterPath {
      // Best effort: BlueZ also ends a client's discovery when its connection closes.
      try? bus.call(
        destination: Self.busName, path: adapterPath, interface: Self.adapterInterface,
        member: "StopDiscovery"
      ) { _ in }
    }
    teardown()
    stopped = true
    phase = .off
  }

  public func setScanning(_ scanning: Bool) {
    scanningWanted = scanning
    reconcileDiscovery()
  }

  /// Tells the daemon about a change of state or counters.
  func report() { sink.update(snapshot, false) }

  func log(_ level: LogLevel, _ message: String) {
    // `bluez:` ends in a colon already.
    sink.log(level, uri.hasSuffix(":") ? "source \(uri) \(message)" : "source \(uri): \(message)")
  }

  // MARK: The connection

  private func connect() throws(Errno) {
    let b = try BusConnection.system(on: loop)
    bus = b
    do {
      try b.whenDisconnected { [weak self] in self?.lost("the system bus connection was lost") }
      try addMatches(on: b)
      counters.busConnections += 1
      backoff.connected(at: loop.monotonicMicroseconds)
      phase = .lookingForBlueZ
      try askForOwner(on: b)
    } catch {
      teardown()
      throw error
    }
    report()
  }

  /// NameOwnerChanged of org.bluez, ObjectManager's signals and PropertiesChanged under
  /// /org/bluez. The rules name no sender (signals carry the sender's unique name); each
  /// handler takes only what the unique name owning org.bluez now sent.
  private func addMatches(on b: BusConnection) throws(Errno) {
    matches = [
      try b.watchOwner(of: Self.busName) { [unowned self] new in self.ownerChanged(to: new) },
      try b.match(
        "type='signal',path='/',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesAdded'"
      ) { [unowned self] m in self.interfacesAdded(m) },
      try b.match(
        "type='signal',path='/',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesRemoved'"
      ) { [unowned self] m in self.interfacesRemoved(m) },
      try b.match(
        "type='signal',path_namespace='/org/bluez',interface='org.freedesktop.DBus.Properties',"
          + "member='PropertiesChanged'"
      ) { [unowned self] m in self.propertiesChanged(m) },
    ]
  }

  /// GetNameOwner(org.bluez): BlueZ is there, or not yet.
  private func askForOwner(on b: BusConnection) throws(Errno) {
    let epoch = self.epoch
    try b.askOwner(of: Self.busName) { [weak self] answer in
      guard let self, self.epoch == epoch, self.phase == .lookingForBlueZ else { return }
      switch answer {
      case .failure:
        // org.freedesktop.DBus.Error.NameHasNoOwner: NameOwnerChanged will say when it comes.
        self.bluezGone(initially: true)
      case .success(let name) where !name.isEmpty:
        self.bluezArrived(name)
      case .success:
        self.counters.badMessages += 1
        self.bluezGone(initially: true)
      }
    }
  }

  /// NameOwnerChanged for org.bluez: `new` owns it now (empty: nobody).
  private func ownerChanged(to new: String) {
    guard bus != nil else { return }
    if new.isEmpty {
      if owner != nil { bluezGone(initially: false) }
    } else if new != owner {
      if owner != nil { bluezGone(initially: false) }
      bluezArrived(new)
    }
  }

  private func bluezArrived(_ name: String) {
    owner = name
    counters.bluezAppeared += 1
    epoch += 1
    phase = .readingObjects
    log(.info, "BlueZ is on the system bus; reading its objects")
    readObjects()
    report()
  }

  /// BlueZ left the bus (or was never there): everything it said is forgotten; its discovery
  /// sessions ended with it.
  private func bluezGone(initially: Bool) {
    if !initially {
      counters.bluezVanished += 1
      log(.warning, "BlueZ left the system bus; waiting for it to come back")
    } else {
      log(.notice, "BlueZ (org.bluez) is not on the system bus; waiting for it")
    }
    owner = nil
    forgetAdapter()
    phase = .noBlueZ
    report()
  }

  /// Forgets the adapter, its devices and locd's discovery on it.
  func forgetAdapter() {
    epoch += 1
    adapterPath = nil
    adapterPowered = false
    devices.removeAll()
    discovering = false
    callInFlight = false
    discoveryProblem = nil
    discoveryRetry?.cancel()
    discoveryRetry = nil
  }

  /// The connection is gone: try again with backoff.
  func lost(_ why: String) {
    guard !stopped else { return }
    teardown()
    let delay = backoff.delayAfterFailure(at: loop.monotonicMicroseconds)
    let retryAt = loop.now.adding(seconds: Double(delay) / 1_000_000)
    // One warning per outage; the retries after it at debug level.
    let first: Bool
    if case .disconnected = phase { first = false } else { first = true }
    phase = .disconnected(why, retryAt: retryAt)
    log(first ? .warning : .debug, "\(why); trying again in \(delay / 1_000_000) s")
    if reconnectTimer == nil {
      reconnectTimer = try? loop.timer(clock: .monotonic, accuracyMicroseconds: 100_000) { [weak self] in
        self?.start()
      }
    }
    reconnectTimer?.arm(atMicroseconds: loop.monotonicMicroseconds + delay)
    report()
  }

  /// Drops everything tied to the connection and closes it.
  private func teardown() {
    owner = nil
    forgetAdapter()
    matches = []
    bus?.close()
    bus = nil
  }
}
