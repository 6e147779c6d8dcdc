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
  var link = SystemBusLink()
  var presence: BlueZPresence
  var devices = BlueZDeviceTable()
  var discovery = BlueZDiscovery()
  /// The retry of StartDiscovery after a failure, while one is pending.
  var discoveryRetry: Timer?

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
    self.presence = BlueZPresence(adapterName: adapter)
    self.loop = loop
    self.sink = sink
    self.uri = SourceURI.bluez(adapter: adapter).description
  }

  deinit { teardown() }

  /// The adapter asked for (`hci1`), or nil for the default one.
  var adapterName: String? { presence.adapterName }
  var bus: BusConnection? { link.bus }
  /// The unique name owning org.bluez.
  var owner: String? { presence.owner }
  /// The adapter in use (`/org/bluez/hci0`).
  var adapterPath: String? { presence.adapterPath }
  var epoch: Int { presence.epoch }

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
      problem = discovery.problem
    }
    let d = devices.counters
    let c = counters
    return SourceSnapshot(
      id: id, uri: uri, state: state,
      counters: [
        Counter("bluez", owner == nil ? 0 : 1), Counter("adapter", adapterPath == nil ? 0 : 1),
        Counter("discovering", discovery.running ? 1 : 0), Counter("devices", devices.count),
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
    link.cancelRetry()
    if discovery.running, let bus, let adapterPath {
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
    discovery.wanted = scanning
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
    do {
      let b = try link.connect(on: loop) { [weak self] in self?.lost("the system bus connection was lost") }
      try addMatches(on: b)
      counters.busConnections += 1
      link.backoff.connected(at: loop.monotonicMicroseconds)
      phase = .lookingForBlueZ
      try askForOwner(on: b)
    } catch {
      teardown()
      throw error
    }
    report()
  }

  /// NameOwnerChanged of org.bluez, ObjectManager's signals on / and PropertiesChanged
  /// under /org/bluez.
  private func addMatches(on b: BusConnection) throws(Errno) {
    try link.follow(
      Self.busName, on: b, objectManager: "/", properties: "/org/bluez",
      ownerChanged: { [unowned self] new in self.ownerChanged(to: new) },
      added: { [unowned self] m in self.interfacesAdded(m) },
      removed: { [unowned self] m in self.interfacesRemoved(m) },
      changed: { [unowned self] m in self.propertiesChanged(m) })
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
    let change = SystemBusLink.ownerChange(from: owner, to: new)
    if change.left { bluezGone(initially: false) }
    if let arrived = change.arrived { bluezArrived(arrived) }
  }

  private func bluezArrived(_ name: String) {
    presence.arrived(name)
    counters.bluezAppeared += 1
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
    presence.gone()
    devices.removeAll()
    forgetDiscovery()
    phase = .noBlueZ
    report()
  }

  /// Forgets the adapter, its devices and locd's discovery on it.
  func forgetAdapter() {
    presence.forgetAdapter()
    devices.removeAll()
    forgetDiscovery()
  }

  /// Forgets locd's discovery on the adapter, and its retry.
  private func forgetDiscovery() {
    discovery.forget()
    discoveryRetry?.cancel()
    discoveryRetry = nil
  }

  /// The connection is gone: try again with backoff.
  func lost(_ why: String) {
    guard !stopped else { return }
    teardown()
    let first: Bool
    if case .disconnected = phase { first = false } else { first = true }
    let at = link.retryAfterLoss(why, firstOfOutage: first, on: loop, log: log) { [weak self] in
      self?.start()
    }
    phase = .disconnected(why, retryAt: at)
    report()
  }

  /// Drops everything tied to the connection and closes it.
  private func teardown() {
    presence.gone()
    devices.removeAll()
    forgetDiscovery()
    link.close()
  }
}
