import LocCore
import LocProtocol
import LocSystem

/// `locctl beacons range CONSTRAINT` and `locctl beacons monitor CONSTRAINT`: ask locd to
/// range or monitor and print what it pushes until interrupted (or `--count N` events).
enum BeaconsLiveCommands {
  static func run(_ words: [String], options: CommandLineOptions, socket: String) -> Int32 {
    let verb = words[0]
    guard words.count == 2, let constraint = BeaconConstraint(words[1]) else {
      printError(
        "locctl beacons \(verb): expected one UUID, UUID:MAJOR or UUID:MAJOR:MINOR (major, minor 0-65535); "
          + BeaconsCommand.usage)
      return ExitStatus.usage
    }
    var count: Int? = nil
    if let text = options.value("count") {
      guard let n = Int(text), n > 0 else {
        printError("locctl beacons \(verb): --count must be a positive number")
        return ExitStatus.usage
      }
      count = n
    }
    var exitAfter: Duration? = nil
    if let text = options.value("exit-after") {
      guard verb == "monitor", let s = Double(text), s > 0, s <= 86400 else {
        printError("locctl beacons \(verb): --exit-after takes seconds (0-86400) and only with monitor")
        return ExitStatus.usage
      }
      exitAfter = .milliseconds(Int64((s * 1000).rounded()))
    }
    let json = options.flag("json")
    // Line-buffered output so a pipe (tests, `| grep`) sees each event at once.
    StandardStreams.lineBufferOutput()
    return withDaemon(socket) { client throws(ControlClient.Failure) in
      if verb == "range" {
        _ = try client.call(.rangeBeacons(constraint))
      } else {
        let started = try client.call(.monitorBeacons(constraint, exitAfter: exitAfter))
        if !json {
          print("\(started.constraint) \(started.state.rawValue), exit after \(started.exitAfter.seconds) s")
        }
      }
      var printed = 0
      while count.map({ printed < $0 }) ?? true {
        let event = try client.nextEvent()
        switch event.data {
        case .beaconsRanged(let r) where verb == "range" && r.constraint == constraint:
          print(
            json ? ServerMessage.event(event).line : "\(event.time.iso8601(fractionDigits: 6)) \(render(r))")
        case .beaconRegion(let r) where verb == "monitor" && r.constraint == constraint:
          print(
            json ? ServerMessage.event(event).line : "\(event.time.iso8601(fractionDigits: 6)) \(render(r))")
        default:
          continue
        }
        printed += 1
      }
      return ExitStatus.ok
    }
  }

  /// `CONSTRAINT: N beacons` and one indented line per beacon, nearest first:
  /// `near 1.995 m rssi -68.0 UUID:MAJOR:MINOR ADDRESS`.
  static func render(_ r: BeaconsRangedEvent) -> String {
    var s = "\(r.constraint): \(r.beacons.count) beacon\(r.beacons.count == 1 ? "" : "s")"
    for b in r.beacons {
      let distance = b.accuracy.map { "\($0.value) m" } ?? "? m"
      let rssi = b.rssi.map { "\($0.value)" } ?? "-"
      s += "\n  \(b.proximity.rawValue) \(distance) rssi \(rssi) \(b.identity) \(b.address)"
    }
    return s
  }

  /// `CONSTRAINT entered (inside)`.
  static func render(_ r: BeaconRegionChangeEvent) -> String {
    "\(r.constraint) \(r.event.rawValue) (\(r.state.rawValue))"
  }
}
