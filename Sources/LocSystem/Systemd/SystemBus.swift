import LocCore

/// locd's side of the D-Bus system bus for systemd (StartUnit for timer actions) and
/// timedated (SetTimezone): asynchronous method calls on a `BusConnection` attached to the
/// event loop. The connection is opened on first use and again after it was lost.
/// `$DBUS_SYSTEM_BUS_ADDRESS` picks another bus (tests use a private one).
public final class SystemBus {
  let loop: EventLoop
  let log: (LogLevel, String) -> Void
  var bus: BusConnection?

  /// A bus client on `loop`; nothing is opened yet.
  public init(loop: EventLoop, log: @escaping (LogLevel, String) -> Void) {
    self.loop = loop
    self.log = log
  }

  /// An argument of a method call.
  public enum Argument {
    /// D-Bus `s`.
    case string(String)
    /// D-Bus `b`.
    case bool(Bool)
  }

  /// The open connection, opening it if needed.
  func connection() throws(Errno) -> BusConnection {
    if let bus, bus.isOpen { return bus }
    bus?.close()
    bus = nil
    let b = try BusConnection.system(on: loop)
    bus = b
    return b
  }

  /// Calls a method; `done` gets nil on success or the error's text.
  public func call(
    destination: String, path: String, interface: String, member: String, arguments: [Argument],
    done: @escaping (String?) -> Void
  ) {
    let bus: BusConnection
    do { bus = try connection() } catch {
      done("cannot connect to the system bus: \(error)")
      return
    }
    let message: BusMessage
    do {
      message = try BusMessage.methodCall(
        on: bus, destination: destination, path: path, interface: interface, member: member)
      for argument in arguments {
        switch argument {
        case .string(let s): try message.append(.string(s))
        case .bool(let b): try message.append(.bool(b))
        }
      }
    } catch {
      done("cannot build the call: \(error)")
      return
    }
    do {
      try bus.call(message) { reply in done(reply.errorText) }
    } catch {
      done("cannot send the call: \(error)")
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
