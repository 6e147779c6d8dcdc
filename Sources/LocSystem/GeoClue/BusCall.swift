import CSystemd

#if canImport(Glibc)
  import Glibc
#endif

/// Asynchronous method calls and signal matches on an sd-bus connection, with Swift closures
/// (sd_bus_call_async(3), sd_bus_add_match_async(3)). The closure is kept alive by the C
/// side until the reply (or the error, the timeout, or the connection's end) arrives.
enum BusCall {
  final class Pending {
    let done: (BusMessage) -> Void
    init(_ done: @escaping (BusMessage) -> Void) { self.done = done }
  }

  /// Calls `member` with `arguments`; `done` gets the reply, which may be an error (see
  /// `BusMessage.errorText`). `timeout` 0 is sd-bus's default (25 s). Throws when the call
  /// cannot be sent; `done` is then never called.
  static func call(
    on bus: OpaquePointer, destination: String, path: String, interface: String, member: String,
    arguments: [BusMessage.Value] = [], timeoutMicroseconds: UInt64 = 0,
    done: @escaping (BusMessage) -> Void
  ) throws(Errno) {
    let message = try BusMessage.methodCall(
      on: bus, destination: destination, path: path, interface: interface, member: member)
    for argument in arguments { try message.append(argument) }
    try call(on: bus, message, timeoutMicroseconds: timeoutMicroseconds, done: done)
  }

  /// Sends the method call `message` (built with `BusMessage.methodCall`); `done` gets the
  /// reply, which may be an error. `timeoutMicroseconds` 0 is sd-bus's default (25 s). Throws
  /// when it cannot be sent; `done` is then never called.
  static func call(
    on bus: OpaquePointer, _ message: BusMessage, timeoutMicroseconds: UInt64 = 0,
    done: @escaping (BusMessage) -> Void
  ) throws(Errno) {
    let pending = Unmanaged.passRetained(Pending(done))
    let sent = sd_bus_call_async(
      bus, nil, message.raw,
      { reply, userdata, _ in
        let pending = Unmanaged<Pending>.fromOpaque(userdata!).takeRetainedValue()
        if let reply { pending.done(BusMessage(retaining: reply)) }
        return 0
      }, pending.toOpaque(), timeoutMicroseconds)
    if sent < 0 {
      pending.release()
      let member = sd_bus_message_get_member(message.raw).map { String(cString: $0) } ?? "?"
      throw Errno(call: "sd_bus_call_async \(member)", code: -sent)
    }
  }

  /// A match kept while its slot lives: `handler` gets every matching message.
  final class Match {
    let handler: (BusMessage) -> Void
    var slot: OpaquePointer?
    init(_ handler: @escaping (BusMessage) -> Void) { self.handler = handler }
    deinit { if let slot { sd_bus_slot_unref(slot) } }
  }

  /// Installs `rule` (a D-Bus match rule) without waiting for the bus to confirm it.
  static func match(on bus: OpaquePointer, _ rule: String, handler: @escaping (BusMessage) -> Void)
    throws(Errno)
    -> Match
  {
    let match = Match(handler)
    var slot: OpaquePointer? = nil
    let r = sd_bus_add_match_async(
      bus, &slot, rule,
      { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        let match = Unmanaged<Match>.fromOpaque(userdata).takeUnretainedValue()
        withExtendedLifetime(match) { match.handler(BusMessage(retaining: message)) }
        return 0
      }, nil, Unmanaged.passUnretained(match).toOpaque())
    _ = try Syscall.systemd("sd_bus_add_match_async", r)
    match.slot = slot
    return match
  }
}

/// What holds a system-bus connection and wants to hear when the bus drops it.
protocol SystemBusOwner: AnyObject {
  /// The loop the connection is attached to.
  var loop: EventLoop { get }
  /// The connection ended (called on the loop, never from inside sd-bus).
  func lost(_ why: String)
}

extension BusCall {
  /// Opens a connection to the system bus, attaches it to `owner.loop` and watches its
  /// Disconnected signal, which calls `owner.lost` (the owner is not retained). Returns the
  /// bus and the watch's slot, both the caller's to unref; on a failure nothing stays open.
  static func openSystemBus(for owner: some SystemBusOwner) throws(Errno)
    -> (bus: OpaquePointer, disconnectSlot: OpaquePointer?)
  {
    var b: OpaquePointer? = nil
    _ = try Syscall.systemd("sd_bus_open_system", sd_bus_open_system(&b))
    guard let b else { throw Errno(call: "sd_bus_open_system", code: ENOMEM) }
    do {
      _ = try Syscall.systemd("sd_bus_attach_event", sd_bus_attach_event(b, owner.loop.event, 0))
      var slot: OpaquePointer? = nil
      _ = try Syscall.systemd(
        "sd_bus_match_signal",
        sd_bus_match_signal(
          b, &slot, "org.freedesktop.DBus.Local", "/org/freedesktop/DBus/Local", "org.freedesktop.DBus.Local",
          "Disconnected",
          { _, userdata, _ in
            let object = Unmanaged<AnyObject>.fromOpaque(userdata!).takeUnretainedValue()
            guard let owner = object as? any SystemBusOwner else { return 0 }
            owner.loop.soon { [weak owner] in owner?.lost("the system bus connection was lost") }
            return 0
          }, Unmanaged.passUnretained(owner as AnyObject).toOpaque()))
      return (b, slot)
    } catch {
      sd_bus_flush_close_unref(b)
      throw error
    }
  }
}
