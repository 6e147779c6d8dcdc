import LocCore
import LocProtocol
import Testing

@Suite struct AcquisitionWireTests {
  func decode(_ line: String) -> Result<(RequestID, WireRequest), WireRequestFailure> {
    WireRequest.decode(Array(line.utf8))
  }

  @Test func locateAndRefreshRequests() throws {
    let full = try decode(#"{"id":1,"method":"locate","params":{"timeout":2.5,"accuracy":20}}"#).get()
    #expect(full.1 == .request(.locate(timeout: .milliseconds(2500), accuracy: 20)))
    let bare = try decode(#"{"id":2,"method":"locate"}"#).get()
    #expect(bare.1 == .request(.locate(timeout: nil, accuracy: nil)))
    #expect(try decode(#"{"id":3,"method":"refresh"}"#).get().1 == .request(.refresh))
    for (line, words) in [
      (#"{"id":1,"method":"locate","params":{"timeout":-1}}"#, "0..3600"),
      (#"{"id":1,"method":"locate","params":{"timeout":"soon"}}"#, "0..3600"),
      (#"{"id":1,"method":"locate","params":{"accuracy":0}}"#, "above 0"),
      (#"{"id":1,"method":"locate","params":{"when":"now"}}"#, "unknown parameter"),
    ] {
      guard case .failure(let f) = decode(line) else {
        Issue.record("\(line) should fail")
        continue
      }
      #expect(f.error.code == .invalidParams)
      #expect(f.error.message.contains(words), "\(f.error.message)")
    }
  }

  @Test func locateAnswerSaysWhereItComesFrom() throws {
    let t = Instant(iso8601: "2026-06-01T08:00:00Z")!
    let p = Position(
      coordinate: Coordinate(lat: 59.9139123, lon: 10.7522456)!, accuracy: 8, time: t, receivedAt: t,
      source: "gpsd://127.0.0.1:2947")
    let cached = PositionResolver.resolve(
      fix: p, lastKnown: nil, manual: nil, freshFor: .seconds(10), now: t.adding(.seconds(600)),
      sourceProblem: "receivers idle between refreshes")
    let answer = LocateAnswer(
      position: cached, wanted: 50, waited: .seconds(30), note: "no fresh fix within 50 m came in 30 s")
    let message = try ServerMessage.decode(
      ServerMessage.reply(.number(4), .located(answer)).lineBytes.dropLast())
    guard case .reply(.number(4), let result) = message else {
      Issue.record("expected the reply to request 4, got \(message)")
      return
    }
    let r = try Call.locate().result(result)
    #expect(r.provenance == .cached)
    #expect(r.accuracyMet == false)
    #expect(r.waited == .seconds(30))
    #expect(r.wanted == 50)
    #expect(r.note == "no fresh fix within 50 m came in 30 s")
    #expect(r.position.age == .seconds(600))
    #expect(
      r.position.position?.coordinate.latitude.value == 59.9139123, "full precision, like location events")
    let fresh = LocateAnswer(
      position: PositionResolver.resolve(
        fix: p, lastKnown: nil, manual: nil, freshFor: .seconds(10), now: t, sourceProblem: nil),
      wanted: 10, waited: .seconds(2), note: "unused")
    #expect(fresh.provenance == .fresh && fresh.accuracyMet && fresh.note == nil)
  }

  @Test func acquisitionEventAndStatusObject() throws {
    var a = Acquisition(policy: Acquisition.Policy())
    let t = Instant(iso8601: "2026-06-01T08:00:00Z")!
    _ = a.trigger(.manual, at: t)
    let report = a.report(pendingLocates: 1)
    let change = AcquisitionChange(transition: a.lastTransition!, report: report)
    let message = try ServerMessage.decode(
      ServerMessage.event(EventMessage(.acquisition(change), at: t)).lineBytes.dropLast())
    guard case .event(let e) = message, case .acquisition(let d) = e.data else {
      Issue.record("expected an acquisition event, got \(message)")
      return
    }
    #expect(e.data.name == "acquisition")
    #expect(d.from == .known(.idle) && d.to == .known(.acquiring) && d.reason == "manual")
    let o = d.acquisition
    #expect(o.policy == .known(.onDemand))
    #expect(o.phase == .acquiring)
    #expect(o.receiversActive)
    #expect(o.deadline == Instant(iso8601: "2026-06-01T08:01:00Z"))
    #expect(o.reasons == [.known(.manual)])
    #expect(o.pendingLocates == 1)
    #expect(o.lastOutcome == nil)
    #expect(o.nextRefresh == nil)
    #expect(o.refreshInterval == .seconds(900) && o.timeout == .seconds(60) && o.accuracy == 50)
    // The words on the wire, as docs/PROTOCOL.md lists them.
    let data = try #require(e.data.json.object)
    #expect(data["from"] == .string("idle") && data["to"] == .string("acquiring"))
    #expect(o.json["receivers"] == .string("active") && o.json["policy"] == .string("on-demand"))
  }
}
