import CSystemd

/// An asynchronous method call on its way (sd_bus_call_async(3)): the closure that gets the
/// reply, kept alive by the C side (a retained reference passed as userdata) until the reply,
/// the error or the timeout arrives. The one pending-call type of locd: GeoClue, BlueZ,
/// timedated and StartUnit all call through it.
final class BusPendingCall {
  let done: (BusMessage) -> Void
  init(_ done: @escaping (BusMessage) -> Void) { self.done = done }
}

extension BusConnection {
  /// A call timeout of "never" for sd-bus (USEC_INFINITY, sd_bus_call_async(3)): `done` is
  /// called when the bus answers, with the callee's reply or the bus's error (the callee left
  /// the bus, or the bus's own reply_timeout passed). sd-bus's default of 25 s gives up on
  /// its side only: dbus-daemon goes on counting the call against the caller's
  /// max_replies_per_connection (128 by default) until the callee answers or leaves, since
  /// its reply_timeout is "never" by default; a caller that must bound what unanswered calls
  /// cost counts them until this answer (GeoClue's agent calls do) and waits on a timer of
  /// its own.
  static let untilAnswered = UInt64.max

  /// Calls `member` with `arguments`; `done` gets the reply, which may be an error (see
  /// `BusMessage.error`). `timeoutMicroseconds` 0 is sd-bus's default (25 s). Throws when the
  /// call cannot be built or sent; `done` is then never called.
  func call(
    destination: String, path: String, interface: String, member: String,
    arguments: [BusMessage.Value] = [], timeoutMicroseconds: UInt64 = 0,
    done: @escaping (BusMessage) -> Void
  ) throws(Errno) {
    let message = try BusMessage.methodCall(
      on: self, destination: destination, path: path, interface: interface, member: member)
    for argument in arguments { try message.append(argument) }
    try call(message, timeoutMicroseconds: timeoutMicroseconds, done: done)
  }

  /// Sends the method call `message` (built with `BusMessage.methodCall`); `done` gets the
  /// reply, which may be an error. `timeoutMicroseconds` 0 is sd-bus's default (25 s). Throws
  /// when it cannot be sent; `done` is then never called (sd_bus_call_async(3)).
  func call(
    _ message: BusMessage, timeoutMicroseconds: UInt64 = 0, done: @escaping (BusMessage) -> Void
  ) throws(Errno) {
    let bus = try handle()
    let pending = Unmanaged.passRetained(BusPendingCall(done))
    let sent = sd_bus_call_async(
      bus, nil, message.raw,
      { reply, userdata, _ in
        let pending = Unmanaged<BusPendingCall>.fromOpaque(userdata!).takeRetainedValue()
        if let reply { pending.done(BusMessage(retaining: reply)) }
        return 0
      }, pending.toOpaque(), timeoutMicroseconds)
    if sent < 0 {
      pending.release()
      throw Errno(call: "sd_bus_call_async \(message.member ?? "?")", code: -sent)
    }
  }
}
