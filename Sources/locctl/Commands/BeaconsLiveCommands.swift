import LocCore
import LocHost
import LocProtocol

/// `locctl beacons range CONSTRAINT` and `locctl beacons monitor CONSTRAINT`: ask locd to
/// range or monitor and print what it pushes until interrupted (or `--count N` events).
enum BeaconsLiveCommands {
  static func run(_ invocation: Invocation) throws(UsageError) -> Int32 {
    let words = invocation.positionals
    let verb = words[0]
    guard words.count == 2, let constraint = BeaconConstraint(words[1]) else {
      throw UsageError(
        "beacons \(verb): expected one UUID, UUID:MAJOR or UUID:MAJOR:MINOR (major, minor 0-65535)")
    }
    var count: Int? = nil
    if let text = invocation.value("count") {
      guard let n = Int(text), n > 0 else { throw UsageError("--count must be a positive number") }
      count = n
    }
    if invocation.value("exit-after") != nil, verb != "monitor" {
      throw UsageError("--exit-after goes with monitor only")
    }
    let exitAfter = try invocation.duration("exit-after", in: .milliseconds(1) ... .seconds(86_400))
    let json = invocation.json
    // Line-buffered output so a pipe (tests, `| grep`) sees each event at once.
    StandardStreams.lineBufferOutput()
    return withDaemon(invocation) { client throws(ControlClient.Failure) in
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
