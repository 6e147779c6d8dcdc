import CSystemd
import LocCore

#if canImport(Glibc)
  import Glibc
#endif

/// locd's side of the D-Bus system bus (sd-bus(3)), attached to the event loop: asynchronous
/// method calls to systemd (StartUnit for timer actions) and timedated (SetTimezone). The
/// connection is opened on first use and again after it was lost. `$DBUS_SYSTEM_BUS_ADDRESS`
/// picks another bus (tests use a private one).
public final class SystemBus {
  let loop: EventLoop
  let log: (LogLevel, String) -> Void
  var bus: OpaquePointer?

  /// A bus client on `loop`; nothing is opened yet.
  public init(loop: EventLoop, log: @escaping (LogLevel, String) -> Void) {
    self.loop = loop
    self.log = log
  }

  deinit {
    if let bus { sd_bus_flush_close_unref(bus) }
  }

  /// An argument of a method call.
  public enum Argument {
    /// D-Bus `s`.
    case string(String)
    /// D-Bus `b`.
    case bool(Bool)
  }

  /// The open connection, opening it if needed.
  func connection() throws(Errno) -> OpaquePointer {
    if let bus, sd_bus_is_open(bus) > 0 { return bus }
    if let old = bus {
      sd_bus_flush_close_unref(old)
      bus = nil
    }
    var b: OpaquePointer? = nil
    var r = sd_bus_open_system(&b)
    guard r >= 0, let b else { throw Errno(call: "sd_bus_open_system", code: -r) }
    r = sd_bus_attach_event(b, loop.event, 0)
    guard r >= 0 else {
      sd_bus_unref(b)
      throw Errno(call: "sd_bus_attach_event", code: -r)
    }
    bus = b
    return b
  }

  final class Pending {
    let done: (String?) -> Void
    init(_ done: @escaping (String?) -> Void) { self.done = done }
  }

  /// Calls a method; `done` gets nil on success or the error's text.
  public func call(
    destination: String, path: String, interface: String, member: String, arguments: [Argument],
    done: @escaping (String?) -> Void
  ) {
    let bus: OpaquePointer
    do { bus = try connection() } catch {
      done("cannot connect to the system bus: \(error)")
      return
    }
    var message: OpaquePointer? = nil
    var r = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
    guard r >= 0, let message else {
      done("cannot build the call: \(Errno(call: "sd_bus_message_new_method_call", code: -r))")
      return
    }
    defer { sd_bus_message_unref(message) }
    for argument in arguments {
      switch argument {
      case .string(let s):
        r = s.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }
      case .bool(let b):
        var v: Int32 = b ? 1 : 0
        r = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "b")), &v)
      }
      guard r >= 0 else {
        done("cannot build the call: \(Errno(call: "sd_bus_message_append_basic", code: -r))")
        return
      }
    }
    let pending = Unmanaged.passRetained(Pending(done))
    r = sd_bus_call_async(
      bus, nil, message,
      { reply, userdata, _ in
        let pending = Unmanaged<Pending>.fromOpaque(userdata!).takeRetainedValue()
        if let error = sd_bus_message_get_error(reply) {
          let name = error.pointee.name.map { String(cString: $0) } ?? "error"
          let text = error.pointee.message.map { String(cString: $0) } ?? ""
          pending.done("\(name): \(text)")
        } else {
          pending.done(nil)
        }
        return 0
      }, pending.toOpaque(), 0)
    if r < 0 {
      pending.release()
      done("cannot send the call: \(Errno(call: "sd_bus_call_async", code: -r))")
    }
  }

  /// Starts `unit` through systemd (org.freedesktop.systemd1.Manager.StartUnit, mode "replace").
  public func startUnit(_ unit: String, done: @escaping (String?) -> Void) {
    call(
      destination: "org.freedesktop.systemd1", path: "/org/freedesktop/systemd1",
      interface: "org.freedesktop.systemd1.Manager", member: "StartUnit",
      arguments: [.string(unit), .string("replace")], done: done)
  }

  /// Sets the system time zone through timedated (org.freedesktop.timedate1.SetTimezone,
  /// not interactive: polkit must allow it without asking; see docs/TIMERS.md).
  public func setTimezone(_ zone: String, done: @escaping (String?) -> Void) {
    call(
      destination: "org.freedesktop.timedate1", path: "/org/freedesktop/timedate1",
      interface: "org.freedesktop.timedate1", member: "SetTimezone",
      arguments: [.string(zone), .bool(false)],
      done: done)
  }
}
