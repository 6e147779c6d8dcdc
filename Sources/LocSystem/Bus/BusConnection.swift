import CSystemd

/// One connection to a D-Bus bus (sd_bus), attached to locd's event loop and owning its
/// reference: every sd-bus call of locd goes through this type and the others in Bus/, as
/// libc calls go through Syscalls/. A final class rather than a non-copyable value because
/// the slots, pending calls and exported objects made on it are released on their own
/// schedule; `close()` (or the end of the last reference) closes it.
final class BusConnection {
  /// The sd_bus, nil once closed.
  private var bus: OpaquePointer?
  /// The loop the connection is attached to.
  let loop: EventLoop
  /// The watch on the connection's end, while one is set.
  private var disconnectWatch: BusSlot?
  private var disconnectHandler: Handler?

  private final class Handler {
    let body: () -> Void
    unowned let loop: EventLoop
    init(_ body: @escaping () -> Void, loop: EventLoop) {
      self.body = body
      self.loop = loop
    }
  }

  private init(_ bus: OpaquePointer, loop: EventLoop) throws(Errno) {
    do {
      _ = try Syscall.systemd("sd_bus_attach_event", sd_bus_attach_event(bus, loop.event, 0))
    } catch {
      sd_bus_flush_close_unref(bus)
      throw error
    }
    self.bus = bus
    self.loop = loop
  }

  /// Connects to the system bus ($DBUS_SYSTEM_BUS_ADDRESS, else the standard socket;
  /// sd_bus_open_system(3)) and attaches it to `loop` (sd_bus_attach_event(3)).
  static func system(on loop: EventLoop) throws(Errno) -> BusConnection {
    var b: OpaquePointer? = nil
    _ = try Syscall.systemd("sd_bus_open_system", sd_bus_open_system(&b))
    guard let b else { throw Errno(call: "sd_bus_open_system", code: Errno.noMemory) }
    return try BusConnection(b, loop: loop)
  }

  /// Connects to the user's session bus ($DBUS_SESSION_BUS_ADDRESS, else
  /// $XDG_RUNTIME_DIR/bus; sd_bus_open_user(3)) and attaches it to `loop`: locd-session's.
  static func session(on loop: EventLoop) throws(Errno) -> BusConnection {
    var b: OpaquePointer? = nil
    _ = try Syscall.systemd("sd_bus_open_user", sd_bus_open_user(&b))
    guard let b else { throw Errno(call: "sd_bus_open_user", code: Errno.noMemory) }
    return try BusConnection(b, loop: loop)
  }

  /// Connects as a client to the bus at `address` (a D-Bus address such as
  /// "unix:path=/run/dbus/system_bus_socket"; sd_bus_new(3), sd_bus_set_address(3),
  /// sd_bus_set_bus_client(3), sd_bus_start(3)) and attaches it to `loop`.
  static func connect(to address: String, on loop: EventLoop) throws(Errno) -> BusConnection {
    var b: OpaquePointer? = nil
    _ = try Syscall.systemd("sd_bus_new", sd_bus_new(&b))
    guard let b else { throw Errno(call: "sd_bus_new", code: Errno.noMemory) }
    do {
      _ = try Syscall.systemd("sd_bus_set_address", sd_bus_set_address(b, address))
      _ = try Syscall.systemd("sd_bus_set_bus_client", sd_bus_set_bus_client(b, 1))
      _ = try Syscall.systemd("sd_bus_start", sd_bus_start(b))
    } catch {
      sd_bus_flush_close_unref(b)
      throw error
    }
    return try BusConnection(b, loop: loop)
  }

  deinit { close() }

  /// The sd_bus, for the other types of Bus/; throws ENOTCONN once closed.
  func handle() throws(Errno) -> OpaquePointer {
    guard let bus else { throw Errno(call: "sd-bus", code: Errno.notConnected) }
    return bus
  }

  /// Whether the connection is open (sd_bus_is_open(3)): false once closed or lost.
  var isOpen: Bool {
    guard let bus else { return false }
    return sd_bus_is_open(bus) > 0
  }

  /// Calls `body` on the loop, never from inside sd-bus, when the connection ends: the
  /// org.freedesktop.DBus.Local.Disconnected signal sd-bus synthesizes (sd_bus_match_signal(3)).
  /// One watch per connection; a second replaces the first.
  func whenDisconnected(_ body: @escaping () -> Void) throws(Errno) {
    let bus = try handle()
    let handler = Handler(body, loop: loop)
    var slot: OpaquePointer? = nil
    _ = try Syscall.systemd(
      "sd_bus_match_signal",
      sd_bus_match_signal(
        bus, &slot, "org.freedesktop.DBus.Local", "/org/freedesktop/DBus/Local", "org.freedesktop.DBus.Local",
        "Disconnected",
        { _, userdata, _ in
          let handler = Unmanaged<Handler>.fromOpaque(userdata!).takeUnretainedValue()
          handler.loop.soon { handler.body() }
          return 0
        }, Unmanaged.passUnretained(handler).toOpaque()))
    disconnectWatch = BusSlot(adopting: slot)
    disconnectHandler = handler
  }

  /// Sends `message` (sd_bus_send(3)); no reply is awaited.
  func send(_ message: BusMessage) throws(Errno) {
    _ = try Syscall.systemd("sd_bus_send", sd_bus_send(try handle(), message.raw, nil))
  }

  /// Emits org.freedesktop.DBus.Properties.PropertiesChanged for `names` of `interface` at
  /// `path`, the values read from the object's vtable (sd_bus_emit_properties_changed_strv(3)).
  func emitPropertiesChanged(path: String, interface: String, _ names: [String]) throws(Errno) {
    let bus = try handle()
    let copies = CStrings(names)
    defer { withExtendedLifetime(copies) {} }
    var strings = copies.pointers
    _ = try Syscall.systemd(
      "sd_bus_emit_properties_changed",
      sd_bus_emit_properties_changed_strv(bus, path, interface, &strings))
  }

  /// Closes the connection: the disconnect watch first (a deliberate close is not a loss),
  /// then whatever is queued is flushed and the bus freed (sd_bus_flush_close_unref(3)).
  func close() {
    disconnectWatch?.release()
    disconnectWatch = nil
    disconnectHandler = nil
    if let bus { sd_bus_flush_close_unref(bus) }
    bus = nil
  }
}
