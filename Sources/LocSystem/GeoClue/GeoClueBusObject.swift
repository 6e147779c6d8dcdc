import CLocShim
import CSystemd

/// An object the GeoClue face serves: its sd-bus vtable (CLocShim/geoclue.c) forwards every
/// method call, property read and property write here, with the object as userdata. The
/// object is registered at `path` until `unregister()`; whoever registers it keeps it alive
/// while it is (sd-bus holds only an unretained pointer).
class GeoClueBusObject {
  /// The object path.
  let path: String
  /// The vtable registration (sd_bus_slot), nil when not registered.
  private var slot: OpaquePointer?

  init(path: String) { self.path = path }

  deinit { unregister() }

  /// Serves `interface` with `vtable` at `path` on `bus` (sd_bus_add_object_vtable(3)).
  func register(on bus: OpaquePointer, interface: String, vtable: UnsafePointer<sd_bus_vtable>) throws(Errno)
  {
    GeoClueBusObject.installHandlers()
    var s: OpaquePointer? = nil
    let r = sd_bus_add_object_vtable(
      bus, &s, path, interface, vtable, Unmanaged.passUnretained(self).toOpaque())
    _ = try Syscall.systemd("sd_bus_add_object_vtable \(path)", r)
    slot = s
  }

  /// Stops serving the object; calls to its path get UnknownObject from now on.
  func unregister() {
    if let slot { sd_bus_slot_unref(slot) }
    slot = nil
  }

  /// A method call; the default refuses it.
  func call(
    _ method: locshim_geoclue_method, _ message: BusMessage, error: UnsafeMutablePointer<sd_bus_error>?
  )
    -> Int32
  {
    BusError.set(error, BusError.failed, "not supported")
  }

  /// A property read from `sender`: append the value to `reply`, or set `error`.
  func get(
    _ property: String, from sender: String?, into reply: BusMessage,
    error: UnsafeMutablePointer<sd_bus_error>?
  )
    -> Int32
  {
    BusError.set(error, BusError.failed, "no such property")
  }

  /// A property write from `sender`: read the value from `value`, or set `error`.
  func set(
    _ property: String, from sender: String?, value: BusMessage, error: UnsafeMutablePointer<sd_bus_error>?
  )
    -> Int32
  {
    BusError.set(error, BusError.failed, "read-only property")
  }

  /// Registers the three forwarding functions with the C tables, once per process.
  private static let handlersInstalled: Bool = {
    locshim_geoclue_set_handlers(
      { method, call, userdata, error in
        guard let call, let userdata else { return -Errno.invalidArgument }
        let object = Unmanaged<GeoClueBusObject>.fromOpaque(userdata).takeUnretainedValue()
        return withExtendedLifetime(object) { object.call(method, BusMessage(retaining: call), error: error) }
      },
      { property, reply, userdata, error in
        guard let property, let reply, let userdata else { return -Errno.invalidArgument }
        let object = Unmanaged<GeoClueBusObject>.fromOpaque(userdata).takeUnretainedValue()
        let sender = GeoClueBusObject.currentSender(of: reply)
        return object.get(
          String(cString: property), from: sender, into: BusMessage(retaining: reply), error: error)
      },
      { property, value, userdata, error in
        guard let property, let value, let userdata else { return -Errno.invalidArgument }
        let object = Unmanaged<GeoClueBusObject>.fromOpaque(userdata).takeUnretainedValue()
        let sender = sd_bus_message_get_sender(value).map { String(cString: $0) }
        return object.set(
          String(cString: property), from: sender, value: BusMessage(retaining: value), error: error)
      })
    return true
  }()

  static func installHandlers() { _ = handlersInstalled }

  /// The sender of the call a property reply answers: the message sd-bus is dispatching now
  /// (sd_bus_get_current_message(3)); Get, GetAll and Set all come through here.
  static func currentSender(of reply: OpaquePointer) -> String? {
    guard let bus = sd_bus_message_get_bus(reply), let current = sd_bus_get_current_message(bus) else {
      return nil
    }
    return sd_bus_message_get_sender(current).map { String(cString: $0) }
  }
}
