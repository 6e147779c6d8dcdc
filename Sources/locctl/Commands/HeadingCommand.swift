import LocCore
import LocHost
import LocProtocol

/// `locctl heading [--filter DEGREES] [--count N] [--json]`: asks locd for the compass's
/// heading and prints each `heading` event until interrupted (or `--count N` events).
enum HeadingCommand {
  static let spec = CommandSpec(
    name: "heading", summary: "the compass's heading, as it turns",
    usage: ["heading [--filter DEGREES] [--count N] [--json]"],
    options: [
      .valued(
        "filter", "DEGREES", "print a heading only after it turned this much (0-180; default 1, 0: every one)"
      ),
      .valued("count", "N", "stop after N headings"),
    ],
    help: """
      Asks locd for the heading of the compass (a compass: source: iio-sensor-proxy's
      magnetometer) and prints each one: when it was measured, degrees clockwise from magnetic
      north, and the source. locd claims the compass while this runs and releases it after.
      True north is not known (locd has no declination model). Needs read access. --json prints
      the protocol's heading events. See PROTOCOL.md, "Heading".
      """,
    examples: ["locctl heading", "locctl heading --filter 10 --count 5"],
    needsDaemon: true, run: run)

  static func run(_ invocation: Invocation) throws(UsageError) -> Int32 {
    try invocation.noPositionals()
    var filter = WireRequest.defaultHeadingFilter
    if let text = invocation.value("filter") {
      guard let f = Double(text), f.isFinite, (0.0...180.0).contains(f) else {
        throw UsageError("--filter must be degrees from 0 to 180")
      }
      filter = f
    }
    var count: Int? = nil
    if let text = invocation.value("count") {
      guard let n = Int(text), n > 0 else { throw UsageError("--count must be a positive number") }
      count = n
    }
    let json = invocation.json
    // Line-buffered output so a pipe (tests, `| grep`) sees each event at once.
    StandardStreams.lineBufferOutput()
    return withDaemon(invocation) { client throws(ControlClient.Failure) in
      _ = try client.call(.startHeading(filter: filter))
      var printed = 0
      while count.map({ printed < $0 }) ?? true {
        let event = try client.nextEvent()
        guard case .heading(let h) = event.data else { continue }
        print(json ? ServerMessage.event(event).line : render(h))
        printed += 1
      }
      return ExitStatus.ok
    }
  }

  /// `2026-06-01T10:00:01.000Z 271.5° magnetic (compass:)`.
  static func render(_ h: HeadingEvent) -> String {
    "\(h.time.iso8601(fractionDigits: 3)) \(h.magneticHeading)° magnetic (\(h.source))"
  }
}
