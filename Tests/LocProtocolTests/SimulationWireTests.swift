import LocProtocol
import Testing

@testable import LocCore

/// The simulation object of `locd --clock replay` (docs/PROTOCOL.md, "simulation"): in
/// `status` and as the data of `simulation-finished`.
@Suite struct SimulationWireTests {
  typealias S = WireSamples

  static let playing = SimulationReport(
    state: .paused, time: S.t, pauses: 3, pausedFor: .microseconds(1_234_567), exitAtEnd: true)

  @Test func statusCarriesTheSimulationOrNull() throws {
    var report = try S.status()
    let plain = StatusView(report)
    #expect(plain.simulation == nil)
    #expect(
      plain.json.object?["simulation"] == .null, "a member of every status, null under the system clock")
    for state in SimulationReport.State.allCases {
      var sim = Self.playing
      sim.state = state
      sim.time = state == .waiting ? nil : S.t
      report.simulation = sim
      let view = StatusView(report)
      let back = try StatusView(json: JSON.parse(view.json.serialized))
      #expect(back == view)
      #expect(back.simulation?.state == .known(state))
    }
  }

  @Test func simulationFinishedEventRoundTrips() throws {
    var end = Self.playing
    end.state = .finished
    let message = ServerMessage.event(EventMessage(.simulationFinished(end), at: S.t))
    let decoded = try ServerMessage.decode(message.lineBytes.dropLast())
    #expect(decoded == message, "\(message.line)")
  }

  /// The members as PROTOCOL.md describes them: the time to the microsecond, `pausedFor`
  /// in seconds to the millisecond (1.234567 s is 1.235 s on the wire).
  @Test func membersAndPrecision() throws {
    let json = SimulationView(Self.playing).json
    let o = try #require(json.object)
    #expect(o["state"] == .string("paused"))
    #expect(o["time"] == .string("2026-06-21T19:57:21.316544Z"))
    #expect(o["pauses"] == .int(3))
    #expect(o["pausedFor"] == .number(1.235))
    #expect(o["exitAtEnd"] == .bool(true))
    #expect(o.keys.count == 5)
  }

  /// `state` is an open enumeration: a newer daemon's state is kept as it came.
  @Test func anUnknownStateIsKept() throws {
    let line =
      #"{"type":"event","event":"simulation-finished","time":"2026-06-21T20:10:00Z","data":{"state":"rewinding","time":null,"pauses":0,"pausedFor":0,"exitAtEnd":false}}"#
    guard case .event(let e) = try ServerMessage.decode(Array(line.utf8)),
      case .simulationFinished(let sim) = e.data
    else {
      Issue.record("not a simulation-finished event: \(line)")
      return
    }
    #expect(sim.state.word == "rewinding")
    #expect(sim.state.known == nil)
    #expect(sim.time == nil && sim.pauses == 0 && sim.pausedFor == .zero && !sim.exitAtEnd)
  }

  @Test func missingMembersAreErrors() throws {
    let line =
      #"{"type":"event","event":"simulation-finished","time":"2026-06-21T20:10:00Z","data":{"state":"finished","time":null,"pausedFor":0,"exitAtEnd":false}}"#
    #expect(throws: WireDecodingError.self) { try ServerMessage.decode(Array(line.utf8)) }
  }
}
