import CSystemd

/// A table of members an exported object serves (an sd_bus_vtable array; sd-bus's vtable
/// macros cannot be used from Swift, so the tables are C, in CLocShim).
typealias BusVTable = UnsafePointer<sd_bus_vtable>

/// An object locd serves at `path` (sd_bus_add_object_vtable(3)): the vtable's callbacks get
/// the object as their userdata, unretained, so whoever registers it keeps it alive while it
/// is registered. Subclasses (the GeoClue face's objects) answer the callbacks.
class BusObject {
  /// The object path.
  let path: String
  /// The registration, nil when not registered.
  private var slot: BusSlot?

  init(path: String) { self.path = path }

  deinit { unregister() }

  /// Serves `interface` with `vtable` at `path` on `connection` (sd_bus_add_object_vtable(3)).
  func register(on connection: BusConnection, interface: String, vtable: BusVTable) throws(Errno) {
    var s: OpaquePointer? = nil
    let r = sd_bus_add_object_vtable(
      try connection.handle(), &s, path, interface, vtable, Unmanaged.passUnretained(self).toOpaque())
    _ = try Syscall.systemd("sd_bus_add_object_vtable \(path)", r)
    slot = BusSlot(adopting: s)
  }

  /// Stops serving the object; calls to its path get UnknownObject from now on.
  func unregister() {
    slot?.release()
    slot = nil
  }
}
