import CSystemd

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
    var m: OpaquePointer? = nil
    let r = sd_bus_message_new_method_call(bus, &m, destination, path, interface, member)
    guard r >= 0, let m else { throw Errno(call: "sd_bus_message_new_method_call", code: -r) }
    let message = BusMessage(adopting: m)
    for argument in arguments { try message.append(argument) }
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
