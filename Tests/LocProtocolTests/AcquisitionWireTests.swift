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
    let json = try JSON.parse(ServerMessage.reply(.number(4), WireEncoding.encode(.located(answer))))
    let r = json["result"]
    #expect(r?["provenance"]?.string == "cached")
    #expect(r?["accuracyMet"] == JSON.bool(false))
    #expect(r?["waited"]?.number == 30)
    #expect(r?["wanted"]?.number == 50)
    #expect(r?["note"]?.string == "no fresh fix within 50 m came in 30 s")
    #expect(r?["position"]?["age"]?.number == 600)
    #expect(r?["position"]?["lat"]?.number == 59.9139123, "full precision, like location events")
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
    let json = try JSON.parse(ServerMessage.event(.acquisition(change), at: t))
    #expect(json["event"]?.string == "acquisition")
    let d = json["data"]
    #expect(
      d?["from"]?.string == "idle" && d?["to"]?.string == "acquiring" && d?["reason"]?.string == "manual")
    let o = d?["acquisition"]
    #expect(o?["policy"]?.string == "on-demand")
    #expect(o?["phase"]?.string == "acquiring")
    #expect(o?["receivers"]?.string == "active")
    #expect(o?["deadline"]?.string == "2026-06-01T08:01:00Z")
    #expect(o?["reasons"] == .array([.string("manual")]))
    #expect(o?["pendingLocates"]?.number == 1)
    #expect(o?["lastOutcome"] == .null)
    #expect(o?["nextRefresh"] == .null)
    #expect(
      o?["refreshInterval"]?.number == 900 && o?["timeout"]?.number == 60 && o?["accuracy"]?.number == 50)
  }
}
