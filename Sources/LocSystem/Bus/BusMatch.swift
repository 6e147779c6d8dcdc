import CSystemd

/// A signal match kept while it lives (sd_bus_add_match_async(3)): `handler` gets every
/// message matching the rule, on the loop, until the match is released.
final class BusMatch {
  let handler: (BusMessage) -> Void
  fileprivate var slot: BusSlot?
  fileprivate init(_ handler: @escaping (BusMessage) -> Void) { self.handler = handler }
}

extension BusConnection {
  /// Installs `rule` (a D-Bus match rule) without waiting for the bus to confirm it
  /// (sd_bus_add_match_async(3)); the match lasts as long as the returned `BusMatch`.
  func match(_ rule: String, handler: @escaping (BusMessage) -> Void) throws(Errno) -> BusMatch {
    let bus = try handle()
    let match = BusMatch(handler)
    var slot: OpaquePointer? = nil
    let r = sd_bus_add_match_async(
      bus, &slot, rule,
      { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        let match = Unmanaged<BusMatch>.fromOpaque(userdata).takeUnretainedValue()
        withExtendedLifetime(match) { match.handler(BusMessage(retaining: message)) }
        return 0
      }, nil, Unmanaged.passUnretained(match).toOpaque())
    _ = try Syscall.systemd("sd_bus_add_match_async", r)
    match.slot = BusSlot(adopting: slot)
    return match
  }
}
