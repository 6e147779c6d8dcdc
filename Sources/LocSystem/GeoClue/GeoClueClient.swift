import CLocBusShim
import CLocShim
import LocCore

/// One org.freedesktop.GeoClue2.Client object on the bus and its Location objects. What the
/// client is (its properties, its Start, what it was signalled) is the face's
/// (`GeoClueFace.Client`); this object forwards calls and property accesses to the service
/// and keeps the Location objects the face publishes.
final class GeoClueClient: GeoClueBusObject {
  /// The client's number (its path's last part).
  let number: GeoClueFace.ClientNumber
  /// The owning connection's unique name.
  let owner: String
  unowned let service: GeoClueService
  /// The engine session while active (one per active period; see docs/GEOCLUE.md).
  var session: SessionID?

  /// The Location object last signalled, the one before it, and older ones kept a few
  /// seconds so a client still reading them does not fail (GeoClue keeps them 5 s).
  private var current: GeoClueLocationObject?
  private var previous: GeoClueLocationObject?
  private var retiring: [(until: UInt64, object: GeoClueLocationObject)] = []
  private var retireTimer: Timer?
  private var nextLocation: UInt64 = 0

  /// The interface name.
  static let interface = "org.freedesktop.GeoClue2.Client"
  /// How long a superseded Location object stays (GeoClue's on_prev_location_timeout, 5 s).
  static let keepSuperseded: UInt64 = 5_000_000
  /// Most superseded Location objects kept at once per client; older ones go early.
  static let maxRetiring = 16

  init(number: GeoClueFace.ClientNumber, owner: String, service: GeoClueService) {
    self.number = number
    self.owner = owner
    self.service = service
    super.init(path: GeoClueFace.path(of: number))
  }

  /// Location: the current Location object's path, "/" before the first.
  var locationPath: String { current?.path ?? "/" }

  override func call(
    _ method: locshim_geoclue_method, _ message: BusMessage, error: BusErrorReturn
  ) -> Int32 {
    switch method {
    case LOCSHIM_GEOCLUE_START: service.clientCall(start: true, number, message)
    case LOCSHIM_GEOCLUE_STOP: service.clientCall(start: false, number, message)
    default: return error.set(BusError.Name.failed, "not supported")
    }
    return 1
  }

  override func get(
    _ property: String, from sender: String?, into reply: BusMessage,
    error: BusErrorReturn
  ) -> Int32 {
    switch service.readProperty(property, of: number, from: sender) {
    case .failure(let refusal): return error.set(refusal.name, refusal.text)
    case .success(let value):
      do { try reply.append(value) } catch { return -error.code }
      return 1
    }
  }

  override func set(
    _ property: String, from sender: String?, value: BusMessage, error: BusErrorReturn
  ) -> Int32 {
    do {
      if let refusal = try service.writeProperty(property, of: number, from: sender, value) {
        return error.set(refusal.name, refusal.text)
      }
    } catch {
      return -error.code
    }
    return 1
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

  /// The current Location object's values changed in place (inside the thresholds).
  func refresh(_ values: GeoClueLocationValues) {
    guard let current else { return }
    current.values = values
    service.send(to: owner, path: current.path) { bus throws(Errno) in
      let m = try BusMessage.signal(
        on: bus, path: current.path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"
      )
      try m.appendPropertiesChanged(interface: GeoClueLocationObject.interface, current.properties)
      return m
    }
  }

  /// A new Location object, registered before LocationUpdated goes to the owner, followed by
  /// the Location property change (GeoClue's order). `supersedeAtOnce`: the client is served
  /// at another accuracy now, so the object of the old one goes in a few seconds rather than
  /// at the next update, which may be far off for a reduced client.
  func publish(_ values: GeoClueLocationValues, supersedeAtOnce: Bool) {
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
    if supersedeAtOnce, let superseded = previous {
      retire(superseded)
      previous = nil
    }
    current = object
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
