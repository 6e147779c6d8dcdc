import LocCore
import LocProtocol
import Testing

/// The regions and visits requests, results and events on the wire (docs/PROTOCOL.md,
/// "Regions and visits"): what clients send decodes into the same request, bad input is
/// refused with `invalid-params`, events and results round-trip through their views.
@Suite struct RegionWireTests {
  static let region = try! CircularRegion(
    id: RegionID("home"), centre: Coordinate(lat: 59.9139, lon: 10.7522)!, radius: 150, notifyOnEntry: true,
    notifyOnExit: false, dwell: .seconds(300))
  static let monitored = [RegionMonitor.Monitored(region: region, state: .inside)]

  func decode(_ line: String) -> Result<WireRequest, RequestError> {
    WireRequest.decode(Array(line.utf8)).map(\.1).mapError(\.error)
  }

  @Test func requestsDecodeIntoWhatTheClientEncoded() throws {
    let requests: [Request] = [
      .registerRegion(Self.region), .unregisterRegion(try RegionID("home")), .regionState(nil),
      .regionState(try RegionID("home")), .monitorVisits(true), .monitorVisits(false),
      .setLaunchUnit("app-org.example.Fences.service"), .setLaunchUnit(nil),
    ]
    for r in requests {
      let line = WireRequest.request(r).line(id: .number(3))
      #expect(try decode(line).get() == .request(r), "\(line)")
    }
    let plain = #"{"id":1,"method":"register-region","params":{"id":"a","lat":1,"lon":2,"radius":10}}"#
    guard case .request(.registerRegion(let r)) = try decode(plain).get() else {
      Issue.record("not register-region")
      return
    }
    #expect(r.notifyOnEntry && r.notifyOnExit && r.dwell == nil)
  }

  @Test func badRegionsAreRefusedWithInvalidParams() {
    func line(_ params: String) -> String { #"{"id":1,"method":"register-region","params":{\#(params)}}"# }
    let bad = [
      line(#""id":"a","lat":1,"lon":2,"radius":0"#), line(#""id":"a","lat":1,"lon":2,"radius":-5"#),
      line(#""id":"a","lat":1,"lon":2,"radius":1e9"#), line(#""id":"a","lat":1,"lon":2,"radius":"NaN""#),
      line(#""id":"a","lat":1,"lon":2,"radius":9.99"#), line(#""id":"a","lat":1,"lon":2,"radius":100000.1"#),
      line(#""id":"a","lat":91,"lon":2,"radius":50"#), line(#""id":"a","lat":1,"lon":-181,"radius":50"#),
      line(#""id":"","lat":1,"lon":2,"radius":50"#), line(#""lat":1,"lon":2,"radius":50"#),
      line(#""id":"a","lat":1,"lon":2,"radius":50,"notify":["dwell"]"#),
      line(#""id":"a","lat":1,"lon":2,"radius":50,"notify":["dwell"],"dwell":0"#),
      line(#""id":"a","lat":1,"lon":2,"radius":50,"notify":["leave"]"#),
      line(#""id":"a","lat":1,"lon":2,"radius":50,"dwell":30"#),
      line(#""id":"a","lat":1,"lon":2,"radius":50,"colour":"red""#),
      #"{"id":1,"method":"monitor-visits","params":{"action":"maybe"}}"#,
      #"{"id":1,"method":"unregister-region","params":{}}"#,
      #"{"id":1,"method":"set-launch-unit","params":{"unit":7}}"#,
    ]
    for l in bad {
      guard case .failure(let error) = decode(l) else {
        Issue.record("accepted: \(l)")
        continue
      }
      #expect(error.code == .invalidParams, "\(l)")
      #expect(!error.message.contains("59.9"), "no coordinates in messages")
    }
    // NaN is no JSON number: the line itself is refused.
    guard case .failure(let e) = decode(line(#""id":"a","lat":1,"lon":2,"radius":NaN"#)) else {
      Issue.record("NaN accepted")
      return
    }
    #expect(e.code == .invalidJSON)
  }

  @Test func eventsRoundTrip() throws {
    let t = Instant(iso8601: "2026-06-01T10:01:00.123Z")!
    let notices: [Notice] = [
      .region(
        RegionNotice(
          id: try RegionID("home"), event: .enter, state: .inside, at: t, since: t.adding(seconds: -20))),
      .region(RegionNotice(id: try RegionID("home"), event: .dwell, state: .inside, at: t, since: t)),
      .visit(.arrived(Visit(coordinate: Coordinate(lat: 59.9, lon: 10.7)!, accuracy: 12.34, arrival: t))),
      .visit(
        .departed(
          Visit(
            coordinate: Coordinate(lat: 59.9, lon: 10.7)!, accuracy: 12.3, arrival: t,
            departure: t.adding(seconds: 600)))),
    ]
    for n in notices {
      let message = ServerMessage.event(EventMessage(n, at: t))
      let back = try ServerMessage.decode(Array(message.line.utf8))
      #expect(back == message, "\(message.line)")
      guard case .event(let e) = back else { continue }
      #expect(e.data.kind == n.kind)
    }
  }
}
