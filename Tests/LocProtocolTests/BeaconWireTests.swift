import LocCore
import LocProtocol
import Testing

/// The beacon requests, results and events on the wire (docs/PROTOCOL.md, "Beacons").
@Suite struct BeaconWireTests {
  typealias S = WireSamples

  func decode(_ line: String) -> Result<WireRequest, RequestError> {
    WireRequest.decode(Array(line.utf8)).map(\.1).mapError(\.error)
  }

  @Test func constraintsAreReadAsLocctlWritesThem() throws {
    let uuid = "494e5445-4c4c-495f-524f-434b535f4857"
    let cases: [(String, UInt16?, UInt16?)] = [
      (uuid, nil, nil), (uuid + ":20597", 20597, nil), (uuid + ":0:65535", 0, 65535),
    ]
    for (text, major, minor) in cases {
      let line = #"{"id":1,"method":"range-beacons","params":{"constraint":"\#(text)"}}"#
      let request = try decode(line).get()
      let c = try #require(BeaconConstraint(uuid: BeaconUUID(uuid)!, major: major, minor: minor))
      #expect(request == .request(.rangeBeacons(c)))
    }
  }

  @Test func badParametersAreRefusedWithInvalidParams() {
    let uuid = "494e5445-4c4c-495f-524f-434b535f4857"
    let bad = [
      #"{"id":1,"method":"range-beacons","params":{}}"#,
      #"{"id":1,"method":"range-beacons","params":{"constraint":"not-a-uuid"}}"#,
      #"{"id":1,"method":"range-beacons","params":{"constraint":"\#(uuid):65536"}}"#,
      #"{"id":1,"method":"range-beacons","params":{"constraint":"\#(uuid)::7"}}"#,
      #"{"id":1,"method":"range-beacons","params":{"constraint":"\#(uuid)","exitAfter":5}}"#,
      #"{"id":1,"method":"monitor-beacons","params":{"constraint":"\#(uuid)","exitAfter":0}}"#,
      #"{"id":1,"method":"monitor-beacons","params":{"constraint":"\#(uuid)","exitAfter":-3}}"#,
      #"{"id":1,"method":"monitor-beacons","params":{"constraint":"\#(uuid)","exitAfter":86401}}"#,
      #"{"id":1,"method":"stop-monitoring-beacons","params":{"constraint":7}}"#,
    ]
    for line in bad {
      guard case .failure(let error) = decode(line) else {
        Issue.record("accepted: \(line)")
        continue
      }
      #expect(error.code == .invalidParams, "\(line)")
    }
  }

  @Test func exitAfterIsReadToTheMillisecond() throws {
    let line =
      #"{"id":1,"method":"monitor-beacons","params":{"constraint":"494e5445-4c4c-495f-524f-434b535f4857","exitAfter":12.3456}}"#
    guard case .request(.monitorBeacons(_, let exitAfter)) = try decode(line).get() else {
      Issue.record("not monitor-beacons")
      return
    }
    #expect(exitAfter == .milliseconds(12_346))
  }

  /// Unknown accuracy is -1 on the wire (CLBeacon's convention), a missing RSSI null; a
  /// distance goes to the millimetre and an RSSI to 0.1 dB.
  @Test func rangedBeaconsOnTheWire() throws {
    let message = ServerMessage.event(
      EventMessage(.beaconsRanged(S.beaconConstraint, S.rangedBeacons), at: S.t))
    let data = try #require(message.json["data"])
    let beacons = try #require(data["beacons"]?.array)
    #expect(data["constraint"] == .string("494e5445-4c4c-495f-524f-434b535f4857:20597"))
    #expect(message.json["event"] == .string("beacons-ranged"))
    #expect(beacons[0]["accuracy"] == .number(2.113))
    #expect(beacons[0]["rssi"] == .number(-68.5))
    #expect(beacons[0]["proximity"] == .string("near"))
    #expect(beacons[0]["address"] == .string("a4:c1:38:d5:a3:3b"))
    #expect(beacons[1]["accuracy"] == .number(-1))
    #expect(beacons[1]["proximity"] == .string("unknown"))
    #expect(beacons[2]["rssi"] == .null)
    #expect(beacons[2]["lastHeard"] == .string("2026-06-21T19:57:14.316544Z"))
    guard case .event(let back) = try ServerMessage.decode(Array(message.line.utf8)),
      case .beaconsRanged(let view) = back.data
    else {
      Issue.record("not decoded as beacons-ranged")
      return
    }
    #expect(view.beacons.map(\.accuracy) == [Meters(2.113), nil, nil])
    #expect(back.data.kind == nil, "no subscription asks for it")
  }

  @Test func regionEventsOnTheWire() throws {
    let line =
      #"{"type":"event","event":"beacon-region","time":"2026-06-21T19:57:21.316544Z","data":{"constraint":"494e5445-4c4c-495f-524f-434b535f4857:20597","event":"determined-outside","state":"outside"}}"#
    let message = try ServerMessage.decode(Array(line.utf8))
    let want = EventMessage(.beaconRegion(S.beaconConstraint, .determinedOutside, state: .outside), at: S.t)
    #expect(message == .event(want))
    #expect(ServerMessage.event(want).line.utf8.count == line.utf8.count)
  }

  /// A beacon's accuracy is -1 when unknown; null (what an earlier daemon sent for an RSSI
  /// no radio reports) is read as unknown too, not as a protocol error (issue 28).
  @Test func anUnknownAccuracyIsReadWhetherMinusOneOrNull() throws {
    var o = BeaconView(WireSamples.rangedBeacons[1]).json.object!
    for unknown in [JSON.number(-1), .null] {
      o["accuracy"] = unknown
      #expect(try BeaconView(json: .object(o), path: WirePath()).accuracy == nil)
    }
    o["accuracy"] = nil
    #expect(try BeaconView(json: .object(o), path: WirePath()).accuracy == nil)
  }
}
