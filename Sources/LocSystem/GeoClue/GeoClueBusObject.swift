import CLocBusShim
import CLocShim

/// An object the GeoClue face serves: its vtable (CLocShim/geoclue.c) forwards every method
/// call, property read and property write here, with the object as userdata (`BusObject`).
class GeoClueBusObject: BusObject {
  /// Serves `interface` with `vtable` at `path` on `connection`.
  override func register(on connection: BusConnection, interface: String, vtable: BusVTable) throws(Errno) {
    GeoClueBusObject.installHandlers()
    try super.register(on: connection, interface: interface, vtable: vtable)
  }

  /// A method call; the default refuses it.
  func call(
    _ method: locshim_geoclue_method, _ message: BusMessage, error: BusErrorReturn
  )
    -> Int32
  {
    error.set(BusError.Name.failed, "not supported")
  }

  /// A property read from `sender`: append the value to `reply`, or set `error`.
  func get(
    _ property: String, from sender: String?, into reply: BusMessage,
    error: BusErrorReturn
  )
    -> Int32
  {
    error.set(BusError.Name.failed, "no such property")
  }

  /// A property write from `sender`: read the value from `value`, or set `error`.
  func set(
    _ property: String, from sender: String?, value: BusMessage, error: BusErrorReturn
  )
    -> Int32
  {
    error.set(BusError.Name.failed, "read-only property")
  }

  /// Registers the three forwarding functions with the C tables, once per process.
  private static let handlersInstalled: Bool = {
    locshim_geoclue_set_handlers(
      { method, call, userdata, error in
        guard let call, let userdata else { return -Errno.invalidArgument }
        let object = Unmanaged<GeoClueBusObject>.fromOpaque(userdata).takeUnretainedValue()
        return withExtendedLifetime(object) {
          object.call(method, BusMessage(retaining: call), error: BusErrorReturn(error))
        }
      },
      { property, raw, userdata, error in
        guard let property, let raw, let userdata else { return -Errno.invalidArgument }
        let object = Unmanaged<GeoClueBusObject>.fromOpaque(userdata).takeUnretainedValue()
        let reply = BusMessage(retaining: raw)
        return object.get(
          String(cString: property), from: reply.currentSender, into: reply, error: BusErrorReturn(error))
      },
      { property, raw, userdata, error in
        guard let property, let raw, let userdata else { return -Errno.invalidArgument }
        let object = Unmanaged<GeoClueBusObject>.fromOpaque(userdata).takeUnretainedValue()
        let value = BusMessage(retaining: raw)
        return object.set(
          String(cString: property), from: value.sender, value: value, error: BusErrorReturn(error))
      })
    return true
  }()

  static func installHandlers() { _ = handlersInstalled }
}
