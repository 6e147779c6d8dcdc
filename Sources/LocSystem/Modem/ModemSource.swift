import LocCore

/// `modem:` (every modem) or `modem:EQUIPMENT-ID` (the one whose EquipmentIdentifier it is):
/// the GNSS inside a modem as ModemManager 1.20 gives it on the system bus
/// (org.freedesktop.ModemManager1, its introspection XML in modemmanager-dev). Modems come
/// from GetManagedObjects on /org/freedesktop/ModemManager1, then InterfacesAdded and
/// InterfacesRemoved; on each whose Modem.Location Capabilities include GPS NMEA, Setup turns
/// the GPS NMEA source on (the modem's other enabled sources kept) with signal_location, and
/// each NMEA trace of the Location property (PropertiesChanged, or GetLocation every second
/// while SignalsLocation is false) goes through a `LiveDecoder` of its own, as a serial
/// receiver's bytes do (docs/SOURCES.md, "The modem: source").
///
/// While acquisition is idle Setup clears the GPS bits (the GNSS engine off); when fixes are
/// wanted again it sets GPS NMEA again; `stop` clears them (the modem's GPS given back).
/// ModemManager missing or restarting, a modem vanishing, Setup failing and the bus lost are
/// states in status, never an error that stops locd. Equipment ids are logged at debug only.
public final class ModemSource: FixSource {
  public let id: SourceID
  let loop: EventLoop
  let sink: SourceSink
  let uri: String
  /// The EquipmentIdentifier asked for, or nil for every modem.
  let equipment: String?

  /// ModemManager's bus name, object manager and interfaces.
  static let busName = "org.freedesktop.ModemManager1"
  static let root = "/org/freedesktop/ModemManager1"
  static let modemInterface = "org.freedesktop.ModemManager1.Modem"
  static let locationInterface = "org.freedesktop.ModemManager1.Modem.Location"
  /// How often GetLocation is asked while a modem does not signal its location: the rate of
  /// a 1 Hz receiver (ModemManager's default GpsRefreshRate is 30 s, but it sends each NMEA
  /// trace as it comes).
  static let pollMicroseconds: UInt64 = 1_000_000

  /// Where the source stands.
  enum Phase: Equatable {
    /// Not started, or stopped.
    case off
    /// No connection to the system bus; retried at the instant.
    case disconnected(String, retryAt: Instant)
    /// Connected; asking who owns org.freedesktop.ModemManager1.
    case lookingForManager
    /// Nobody owns it: waiting for ModemManager to start.
    case noManager
    /// ModemManager is there; its objects are being read.
    case readingObjects
    /// The modems are known (perhaps none).
    case ready
  }

  var phase = Phase.off
  var link = SystemBusLink()
  /// Who owns ModemManager's name, the generation of what it said, and whether `stop` was called.
  var presence = BusPeerPresence()
  /// The modems by object path (the one asked for, or all).
  var modems: [String: ModemGNSS] = [:]
  /// What happened, counted, with the decoding of modems that went away.
  var counters = ModemCounters()
  /// Whether acquisition wants fixes.
  var active = true
  /// Whether the modems' decoders assemble skies (`setSkiesWanted`).
  /// GetLocation for modems that do not signal, and the assistance file's download.
  var helpers = ModemHelpers()
  var pollTimer: Timer? {
    get { helpers.pollTimer }
    set { helpers.pollTimer = newValue }
  }

  /// A modem source for `equipment` (nil: every modem).
  public init(id: SourceID, equipment: String?, loop: EventLoop, sink: SourceSink) {
    self.id = id
    self.equipment = equipment
    self.loop = loop
    self.sink = sink
    self.uri = SourceURI.modem(equipment: equipment).description
  }

  deinit { teardown() }

  var bus: BusConnection? { link.bus }
  var owner: String? { presence.owner }

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
    // The GPS given back: Setup without the GPS bits, and the refresh rate the modem had,
    // sent before the connection is flushed and closed (ModemManager keeps a source enabled
    // until a client disables it, whoever enabled it).
    for modem in sortedModems {
      if modem.phase == .running || modem.phase == .settingUp(on: true) || modem.cells.added {
        setup(modem, on: false, cells: false)
      }
      if let rate = modem.refresh.before { setRefreshRate(modem, rate) }
    }
    teardown()
    presence.stopped = true
    phase = .off
  }

  public func setSkiesWanted(_ wanted: Bool) {
    for modem in modems.values { modem.live.assemblesSkies = wanted }
  }

  public func setActive(_ active: Bool) {
    guard active != self.active else { return }
    self.active = active
    if active { retryFailed() }
    sink.log(.debug, "source \(uri): \(active ? "fixes are wanted, GPS on" : "acquisition idle, GPS off")")
    reconcile()
    report()
  }

  /// The modems in path order.
  var sortedModems: [ModemGNSS] { modems.keys.sorted().compactMap { modems[$0] } }

  /// Tells the daemon about a change of state or counters.
  func report(restarted: Bool = false) { sink.update(snapshot, restarted) }

  func log(_ level: LogLevel, _ message: String) {
    sink.log(level, uri.hasSuffix(":") ? "source \(uri) \(message)" : "source \(uri): \(message)")
  }

  // MARK: The connection

  private func connect() throws(Errno) {
    do {
      let b = try link.connect(on: loop) { [weak self] in self?.lost("the system bus connection was lost") }
      try addMatches(on: b)
      counters.busConnections += 1
      link.backoff.connected(at: loop.monotonicMicroseconds)
      phase = .lookingForManager
      try askForOwner(on: b)
    } catch {
      teardown()
      throw error
    }
    report()
  }

  /// NameOwnerChanged of ModemManager, its ObjectManager's signals and PropertiesChanged
  /// under its root.
  private func addMatches(on b: BusConnection) throws(Errno) {
    try link.follow(
      Self.busName, on: b, objectManager: Self.root, properties: Self.root,
      ownerChanged: { [unowned self] new in self.ownerChanged(to: new) },
      added: { [unowned self] m in self.interfacesAdded(m) },
      removed: { [unowned self] m in self.interfacesRemoved(m) },
      changed: { [unowned self] m in self.propertiesChanged(m) })
  }

  private func askForOwner(on b: BusConnection) throws(Errno) {
    let epoch = presence.epoch
    try b.askOwner(of: Self.busName) { [weak self] answer in
      guard let self, self.presence.epoch == epoch, self.phase == .lookingForManager else { return }
      switch answer {
      case .failure: self.managerGone(initially: true)
      case .success(let name) where !name.isEmpty: self.managerArrived(name)
      case .success:
        self.counters.badMessages += 1
        self.managerGone(initially: true)
      }
    }
  }

  private func ownerChanged(to new: String) {
    guard bus != nil else { return }
    let change = SystemBusLink.ownerChange(from: owner, to: new)
    if change.left { managerGone(initially: false) }
    if let arrived = change.arrived { managerArrived(arrived) }
  }

  private func managerArrived(_ name: String) {
    presence.arrived(name)
    counters.managerAppeared += 1
    log(.info, "ModemManager is on the system bus; reading its modems")
    readObjects()
    report()
  }

  /// ModemManager left (or was never there): its modems are forgotten.
  private func managerGone(initially: Bool) {
    if initially {
      log(.notice, "ModemManager (\(Self.busName)) is not on the system bus; waiting for it")
    } else {
      counters.managerVanished += 1
      log(.warning, "ModemManager left the system bus; waiting for it to come back")
    }
    presence.gone()
    forgetModems()
    phase = .noManager
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

  /// Every modem forgotten, its decoder's counters kept.
  func forgetModems() {
    let hadCells = modems.values.contains { $0.cells.tower != nil }
    for modem in modems.values { retire(modem) }
    modems = [:]
    if hadCells { sendCells() }
    pollTimer?.disarm()
  }

  /// A modem gone: its stream ended, its counters kept in the totals.
  func retire(_ modem: ModemGNSS) {
    modem.live.end()
    modem.live.stop()
    counters.retired.add(modem.live)
  }

  private func teardown() {
    presence.gone()
    forgetModems()
    pollTimer?.cancel()
    pollTimer = nil
    helpers.download?.cancel()
    link.close()
  }
}

/// What a `modem:` source keeps running beside its modems.
struct ModemHelpers {
  var pollTimer: Timer?
  /// Made at the first assistance download.
  var download: AssistanceDownload?
}

/// What a `modem:` source counted, and the decoding of its modems that went away.
struct ModemCounters {
  var managerAppeared = 0
  var managerVanished = 0
  var modemsAppeared = 0
  var modemsVanished = 0
  /// Modems whose EquipmentIdentifier is not the one asked for.
  var otherModems = 0
  /// Setup and SetGpsRefreshRate calls.
  var setup = SetupCounters()
  /// The Location updates read.
  var locations = LocationCounters()
  /// The serving cells read.
  var cells = CellCounters()
  /// Unreadable messages and values of the wrong type.
  var badMessages = 0
  var busConnections = 0
  var nextSerial = 0
  var retired = DecoderTotals()
}

/// The Location updates a `modem:` source read.
struct LocationCounters {
  /// NMEA traces taken (each a Location update), repeats skipped, and GetLocation calls.
  var traces = 0
  var repeatedTraces = 0
  var polls = 0
  /// Location entries of another type or over a limit.
  var skipped = 0
}

/// The calls a `modem:` source made to switch GPS.
struct SetupCounters {
  var calls = 0
  var errors = 0
  /// SetGpsRefreshRate calls that failed.
  var refreshRateErrors = 0
  /// Times a running gpsd was found holding a modem's GPS port.
  var gpsdHeld = 0
  /// The GNSS assistance given before Setup.
  var assistance = AssistanceCounters()
}
