import CLocShim
import LocCore

/// One org.freedesktop.GeoClue2.Client object: its properties, its Location objects and
/// what the face knows about it. Only the connection that created it may use it (GeoClue:
/// gclue-service-client.c answers others AccessDenied). Start and Stop go to the service.
final class GeoClueClient: GeoClueBusObject {
  /// The client's number (its path's last part); GetClient reuses the lowest of a connection.
  let number: UInt64
  /// The owning connection's unique name.
  let owner: String
  /// Who that connection is.
  let peer: Peer
  unowned let service: GeoClueService

  /// DesktopId as the client set it ("" until then).
  var desktopID = ""
  /// RequestedAccuracyLevel as set (any `u`; made valid at Start).
  var requestedLevel = GeoClueAccuracyLevel.clientDefault.rawValue
  /// DistanceThreshold and TimeThreshold.
  var thresholds = GeoClueThresholds()
  /// Active: started and delivering.
  private(set) var active = false

  /// The engine session while active (one per active period; see docs/GEOCLUE.md).
  var session: SessionID?
  /// The Start call being authorized, answered when that is done.
  var pendingStart: BusMessage?
  /// The level its Start allowed before its user's agent's MaxAccuracyLevel: the requested
  /// level made valid, capped by the agent's AuthorizeApp answer when it was asked.
  var allowedLevel: GeoClueAccuracyLevel?
  /// The level it is served at now: `allowedLevel` capped by the agent's MaxAccuracyLevel,
  /// lowered and raised with it while the client is active.
  var grantedLevel: GeoClueAccuracyLevel?
  /// The next location is signalled as a new Location object whatever the thresholds: the
  /// accuracy the client is served at changed, and its current object no longer fits it.
  var mustSignal = false
  /// The app it is, found at Start (DesktopId weighed against the peer's cgroup).
  var identity: AppIdentity?
  /// Stopped because the agent's MaxAccuracyLevel went to 0; restarted when it rises again.
  var stoppedByAgent = false
  /// The wait for an agent to register before Start is answered without one.
  var agentWait: Timer?

  /// The Location object last signalled, the one before it, and older ones kept a few
  /// seconds so a client still reading them does not fail (GeoClue keeps them 5 s).
  private var current: GeoClueLocationObject?
  private var previous: GeoClueLocationObject?
  private var retiring: [(until: UInt64, object: GeoClueLocationObject)] = []
  private var retireTimer: Timer?
  private var nextLocation: UInt64 = 0
  /// The values last signalled: the thresholds are measured from here.
  private var lastSignalled: GeoClueLocationValues?

  /// The interface name.
  static let interface = "org.freedesktop.GeoClue2.Client"
  /// How long a superseded Location object stays (GeoClue's on_prev_location_timeout, 5 s).
  static let keepSuperseded: UInt64 = 5_000_000
  /// Most superseded Location objects kept at once per client; older ones go early.
  static let maxRetiring = 16
  /// Longest DesktopId (a desktop file id is a file name: NAME_MAX).
  static let maxDesktopID = 255

  init(number: UInt64, owner: String, peer: Peer, service: GeoClueService) {
    self.number = number
    self.owner = owner
    self.peer = peer
    self.service = service
    super.init(path: "/org/freedesktop/GeoClue2/Client/\(number)")
  }

  /// Location: the current Location object's path, "/" before the first.
  var locationPath: String { current?.path ?? "/" }

  override func call(
    _ method: locshim_geoclue_method, _ message: BusMessage, error: BusErrorReturn
  ) -> Int32 {
    guard message.sender == owner else {
      service.counters.strangersDenied += 1
      return error.set(BusError.Name.accessDenied, "Access denied")
    }
    switch method {
    case LOCSHIM_GEOCLUE_START: service.start(self, call: message)
    case LOCSHIM_GEOCLUE_STOP: service.stop(self, call: message)
    default: return error.set(BusError.Name.failed, "not supported")
    }
    return 1
  }

  override func get(
    _ property: String, from sender: String?, into reply: BusMessage,
    error: BusErrorReturn
  ) -> Int32 {
    guard sender == owner else {
      service.counters.strangersDenied += 1
      return error.set(BusError.Name.accessDenied, "Access denied")
    }
    let value: BusMessage.Value
    switch property {
    case "Location": value = .objectPath(locationPath)
    case "DistanceThreshold": value = .uint32(thresholds.distance)
    case "TimeThreshold": value = .uint32(thresholds.time)
    case "DesktopId": value = .string(desktopID)
    case "RequestedAccuracyLevel": value = .uint32(requestedLevel)
    case "Active": value = .bool(active)
    default: return error.set(BusError.Name.failed, "no such property")
    }
    do { try reply.append(value) } catch { return -error.code }
    return 1
  }

  override func set(
    _ property: String, from sender: String?, value: BusMessage, error: BusErrorReturn
  ) -> Int32 {
    guard sender == owner else {
      service.counters.strangersDenied += 1
      return error.set(BusError.Name.accessDenied, "Access denied")
    }
    let changed: BusMessage.Value
    do {
      switch property {
      case "DistanceThreshold":
        thresholds.distance = try value.readUInt32()
        changed = .uint32(thresholds.distance)
      case "TimeThreshold":
        thresholds.time = try value.readUInt32()
        changed = .uint32(thresholds.time)
      case "RequestedAccuracyLevel":
        requestedLevel = try value.readUInt32()
        changed = .uint32(requestedLevel)
      case "DesktopId":
        let id = try value.readText()
        guard GeoClueClient.isDesktopID(id) else {
          service.counters.invalidDesktopIDs += 1
          return error.set(
            BusError.Name.invalidArgs,
            "DesktopId must be a desktop file id without '.desktop': at most \(GeoClueClient.maxDesktopID) bytes, no '/', no control characters"
          )
        }
        desktopID = id
        changed = .string(id)
      default: return error.set(BusError.Name.failed, "no such property")
      }
    } catch {
      return -error.code
    }
    emitChanged([(property, changed)])
    return 1
  }

  /// Whether `id` can name a desktop file: not empty, at most `maxDesktopID` bytes, no `/`,
  /// no control characters (the desktop entry specification's file ids are file names).
  static func isDesktopID(_ id: String) -> Bool {
    !id.isEmpty && id.utf8.count <= maxDesktopID && !id.contains("/")
      && id.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F }
  }

  /// Marks the client active or not and tells its connection.
  func setActive(_ value: Bool) {
    guard active != value else { return }
    active = value
    emitChanged([("Active", .bool(value))])
  }

  /// Tells the owner that client properties changed. Sent to the owner only, unlike
  /// GeoClue's broadcast (docs/GEOCLUE.md, differences).
  func emitChanged(_ changed: [(String, BusMessage.Value)]) {
    service.send(to: owner, path: path) { bus throws(Errno) in
      let m = try BusMessage.signal(
        on: bus, path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")
      try m.appendPropertiesChanged(interface: GeoClueClient.interface, changed)
      return m
    }
  }

  /// A new location from the engine. Past the thresholds it becomes a new Location object,
  /// registered before LocationUpdated goes to the owner, followed by the Location property
  /// change (GeoClue's order); inside them the current object is updated in place.
  /// After `mustSignal` was set, the next location other than the last signalled one is
  /// signalled whatever the thresholds, and the superseded object is retired at once.
  func update(_ values: GeoClueLocationValues) {
    let forced = mustSignal && values != lastSignalled
    guard forced || thresholds.signals(values, after: lastSignalled) else {
      if let current, current.values != values {
        current.values = values
        service.send(to: owner, path: current.path) { bus throws(Errno) in
          let m = try BusMessage.signal(
            on: bus, path: current.path, interface: "org.freedesktop.DBus.Properties",
            member: "PropertiesChanged")
          try m.appendPropertiesChanged(interface: GeoClueLocationObject.interface, current.properties)
          return m
        }
      }
      return
    }
    guard let bus = service.bus else { return }
    let object = GeoClueLocationObject(path: "\(path)/Location/\(nextLocation)", owner: owner, values: values)
    nextLocation += 1
    do {
      try object.register(
        on: bus, interface: GeoClueLocationObject.interface, vtable: locshim_geoclue_location_vtable())
    } catch {
      service.handlers.log(.warning, "GeoClue: cannot publish a location for \(path): \(error), ignoring")
      return
    }
    if let previous { retire(previous) }
    let old = current?.path ?? "/"
    previous = current
    if forced, let superseded = previous {
      // Served at another accuracy now: the object of the old accuracy goes in a few seconds
      // rather than at the next update, which may be far off for a reduced client.
      retire(superseded)
      previous = nil
    }
    current = object
    lastSignalled = values
    mustSignal = false
    service.counters.locationsSignalled += 1
    service.send(to: owner, path: path) { bus throws(Errno) in
      let m = try BusMessage.signal(
        on: bus, path: path, interface: GeoClueClient.interface, member: "LocationUpdated")
      try m.append(.objectPath(old))
      try m.append(.objectPath(object.path))
      return m
    }
    emitChanged([("Location", .objectPath(object.path))])
  }

  /// Keeps a superseded object a few seconds, then removes it (one timer per client, armed
  /// only while something is retiring: nothing wakes locd when nothing moves).
  private func retire(_ object: GeoClueLocationObject) {
    let now = service.loop.monotonicMicroseconds
    retiring.append((now + GeoClueClient.keepSuperseded, object))
    while retiring.count > GeoClueClient.maxRetiring { retiring.removeFirst().object.unregister() }
    armRetireTimer()
  }

  private func armRetireTimer() {
    guard let first = retiring.first else {
      retireTimer?.disarm()
      return
    }
    if retireTimer == nil {
      retireTimer = try? service.loop.timer(clock: .monotonic, accuracyMicroseconds: 250_000) { [weak self] in
        self?.retireDue()
      }
    }
    retireTimer?.arm(atMicroseconds: first.until)
  }

  private func retireDue() {
    let now = service.loop.monotonicMicroseconds
    while let first = retiring.first, first.until <= now { retiring.removeFirst().object.unregister() }
    armRetireTimer()
  }

  /// Removes the client's objects from the bus (the client is deleted or its owner left).
  func removeAll() {
    agentWait?.cancel()
    agentWait = nil
    retireTimer?.cancel()
    retireTimer = nil
    for (_, object) in retiring { object.unregister() }
    retiring = []
    previous?.unregister()
    current?.unregister()
    previous = nil
    current = nil
    unregister()
  }
}
