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
