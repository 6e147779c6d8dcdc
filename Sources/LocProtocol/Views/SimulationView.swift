import LocCore

/// The simulation object (docs/PROTOCOL.md, "simulation"): the replay of `locd --clock
/// replay`, in `status` (null under the system clock) and as the data of `simulation-finished`.
public struct SimulationView: WireCodable {
  /// Where the simulation is; newer minor versions may add states.
  public typealias State = SimulationReport.State

  /// `waiting`, `playing`, `paused` or `finished`.
  public var state: OpenEnum<State>
  /// The simulated now, to the microsecond; nil before the first fix.
  public var time: Instant?
  /// How many times flow control paused the replay.
  public var pauses: Int
  /// Real time spent paused, in seconds (to the millisecond).
  public var pausedFor: Duration
  /// Whether locd exits once the replay has finished and clients have what was queued.
  public var exitAtEnd: Bool

  /// The wire form of `r`.
  public init(_ r: SimulationReport) {
    state = OpenEnum(r.state.rawValue)
    time = r.time
    pauses = r.pauses
    pausedFor = WireFormat.seconds(r.pausedFor, 3)
    exitAtEnd = r.exitAtEnd
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    state = try o.open("state")
    time = try o.optionalInstant("time")
    pauses = try o.int("pauses")
    pausedFor = try o.seconds("pausedFor")
    exitAtEnd = try o.bool("exitAtEnd")
  }

  public var json: JSON {
    .object([
      "state": .string(state.word), "time": WireFormat.time(time, 6), "pauses": .int(pauses),
      "pausedFor": WireFormat.seconds(pausedFor), "exitAtEnd": .bool(exitAtEnd),
    ])
  }
}
