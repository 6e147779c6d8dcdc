/// The one next step when there is no position (`ResolvedPosition.remedy`, locctl's "To fix:"),
/// from what this machine has (issue 43, item 4): a receiver that is there but whose fixes
/// are dropped is not told to connect a receiver; a machine with network positioning off is
/// told of the switch; one whose service fails or that has no Wi-Fi to look up is told of
/// what is left (IP lookups, the static file, a manual place).
public struct FallbackAdvice: Sendable, Hashable {
  /// A fix source is connected (a receiver is there), whether or not its fixes are used.
  public var receiverConnected = false
  /// The connected receiver's fixes are being dropped (status says why).
  public var receiverDropping = false
  /// `[Network] Enable=`.
  public var networkEnabled = false
  /// `[Network] IPLookup=`.
  public var ipLookup = false
  /// Why the last lookup gave no position.
  public var lookupProblem: String?
  /// Why the last Wi-Fi scan read nothing.
  public var scanProblem: String?
  /// The static file's path (nil: none configured).
  public var staticFile: String?
  /// Why the static file gives no position although it exists.
  public var staticProblem: String?

  /// Nothing known.
  public init() {}

  /// The remedy, in words.
  public var remedy: String {
    let manual = "run 'locctl set-location LAT LON'"
    let staticStep: String? = staticFile.map { path in
      staticProblem.map { "fix \(path) (\($0))" }
        ?? "write \(path) (latitude, longitude, altitude, accuracy, one a line)"
    }
    let places = [staticStep, manual].compactMap { $0 }.joined(separator: ", or ")
    if receiverConnected && receiverDropping {
      return "the receiver is connected but its fixes are dropped (see 'locctl status' sources); "
        + "meanwhile \(places)"
    }
    let receiver = receiverConnected ? nil : "connect a GPS receiver (see 'locctl status' sources)"
    guard networkEnabled else {
      return [
        "turn on network positioning ([Network] Enable=yes in locd.conf: a position from the Wi-Fi "
          + "networks around, or the public address)", receiver, places,
      ].compactMap { $0 }.joined(separator: ", or ")
    }
    if let scanProblem, !ipLookup {
      return
        "no Wi-Fi to look up (\(scanProblem)) and IP lookups are off: [Network] IPLookup=yes places this machine by its "
        + "address (city level), or " + [receiver, places].compactMap { $0 }.joined(separator: ", or ")
    }
    if let lookupProblem {
      return "the geolocation service gave no position (\(lookupProblem)): "
        + [places, receiver].compactMap { $0 }.joined(separator: ", or ")
    }
    return [receiver, places].compactMap { $0 }.joined(separator: ", or ")
  }
}
