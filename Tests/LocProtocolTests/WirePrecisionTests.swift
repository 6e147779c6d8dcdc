import LocProtocol
import Testing

@testable import LocCore

/// The conversions from the core's reports keep exactly the precision docs/PROTOCOL.md
/// gives each member; the expected words are worked out by hand from the sample values.
@Suite struct WirePrecisionTests {
  typealias S = WireSamples

  @Test func positionFullAndRounded() throws {
    // 59.9139123456 to 7 decimals; 4.23 m and 23.456 m to a tenth; 19:57:21.316544 to the ms.
    let full = try #require(PositionView(S.position, rounded: false).json.object)
    #expect(full["lat"] == .number(59.9139123) && full["lon"] == .number(10.7522457))
    #expect(full["accuracy"] == .number(4.2) && full["altitude"] == .number(23.5))
    #expect(full["time"] == .string("2026-06-21T19:57:21.316Z"))
    #expect(full["name"] == nil, "absent without a name")
    // ±4.23 m: one unit of the 5th decimal of latitude is 1.1 m, of the 4th 11 m, so 5 places.
    let rounded = try #require(PositionView(S.position, rounded: true).json.object)
    #expect(rounded["lat"] == .number(59.91391) && rounded["lon"] == .number(10.75225))
    // Unknown accuracy: 4 places.
    let manual = try #require(PositionView(S.manual, rounded: true).json.object)
    #expect(manual["lat"] == .number(-33.8688) && manual["name"] == .string("Sydney \"office\""))
  }

  /// A request's numbers go on the wire with at most 15 significant digits: one with more
  /// (a latitude of 16) comes back rounded, within 1e-13 degrees, and its line is a fixed
  /// point (make fuzz's wire target found this one, whose re-encoding it had required to be
  /// exact).
  @Test func aRequestPastFifteenDigitsIsWrittenAsAFixedPoint() throws {
    let line = Array(
      #"{"id":"b","method":"set-location","params":{"lat":59.91444444444444,"lon":10.7522}}"#.utf8)
    guard case .success((let id, let request)) = WireRequest.decode(line) else {
      Issue.record("the request was refused")
      return
    }
    let written = request.line(id: id)
    #expect(written.contains(#""lat":59.9144444444444,"#))
    guard case .success((let id2, let again)) = WireRequest.decode(Array(written.utf8)) else {
      Issue.record("the written request was refused")
      return
    }
    #expect(id2 == id)
    #expect(again.line(id: id2) == written)
    guard case .request(.setLocation(let a, _, _)) = request, case .request(.setLocation(let b, _, _)) = again
    else {
      Issue.record("not set-location: \(request), \(again)")
      return
    }
    #expect(abs(a.latitude.value - b.latitude.value) < 1e-13)
  }

  @Test func degradedPositionHasNullCoordinatesAndNoTime() throws {
    let o = try #require(ResolvedPositionView(S.degraded, rounded: true).json.object)
    #expect(o.keys == ["lat", "lon", "accuracy", "tier", "provenance", "age", "reason", "remedy"])
    #expect(o["provenance"] == JSON.null)
    #expect(o["lat"] == JSON.null && o["tier"] == .string("none"))
  }

  @Test func timesCarryTheirDigits() throws {
    #expect(
      ServerMessage.event(EventMessage(.sourceStatus(S.source), at: S.t)).json["time"]
        == .string(
          "2026-06-21T19:57:21.316544Z"))
    // retryAt is t + 2.5 s = 19:57:23.816544, to the second.
    #expect(SourceView(S.source).json["retryAt"] == .string("2026-06-21T19:57:23Z"))
    // Before 1970 the cut goes down too, as iso8601 writes it: -0.5 s is 23:59:59.
    let early = Instant(microsecondsSinceEpoch: -500_000)
    #expect(WireFormat.truncate(early, 0).iso8601() == early.iso8601())
    #expect(WireFormat.truncate(early, 0) == Instant(microsecondsSinceEpoch: -1_000_000))
  }

  @Test func aFaultIsToTheSecondAndAbsentWithoutOne() throws {
    #expect(SourceView(S.source).json["fault"] == nil, "no member while all is well (protocol 1.7)")
    var silent = S.source
    silent.state = .connected
    silent.fault = SourceFault(kind: .silent, reason: "sent nothing for 10 s", since: S.t)
    let fault = try #require(SourceView(silent).json["fault"]?.object)
    #expect(fault["kind"] == .string("silent"))
    #expect(fault["reason"] == .string("sent nothing for 10 s"))
    #expect(fault["since"] == .string("2026-06-21T19:57:21Z"))
    // A kind from a newer daemon decodes as it is.
    let newer = try FaultView(
      json: .object([
        "kind": .string("overheated"), "reason": .string("x"), "since": .string("2026-06-21T19:57:21Z"),
      ]),
      path: WirePath())
    #expect(newer.kind == .other("overheated"))
  }

  @Test func aWaitingSourceHasItsNextAttemptAndNoError() throws {
    // The default source finding no gpsd (protocol 1.10): retryAt to the second as when
    // reconnecting, no lastError, no fault.
    var waiting = S.source
    waiting.state = .waiting(retryAt: S.t.adding(seconds: 2.5))
    waiting.lastError = nil
    let view = SourceView(waiting)
    #expect(view.json["state"] == .string("waiting"))
    #expect(view.json["retryAt"] == .string("2026-06-21T19:57:23Z"))
    #expect(view.json["lastError"] == JSON.null)
    #expect(view.json["fault"] == nil)
    #expect(try SourceView(json: view.json).state == .known(.waiting))
    // Waiting with no attempt planned (acquisition idle): no retryAt.
    waiting.state = .waiting(retryAt: nil)
    #expect(SourceView(waiting).json["retryAt"] == nil)
  }

  @Test func durationsAndDistances() throws {
    // Fired 12.3456 ms late: 0.012 s. Located after 2.3456 s: 2.346 s. Age 1.234 s: 1.2 s.
    let fired = try TimerFiredEvent(
      S.firing(), zone: "Europe/Madrid",
      local: LocalDateTime(microsecondsSinceLocalEpoch: S.t.microsecondsSinceEpoch + 7_200_000_000))
    #expect(fired.json["late"] == .number(0.012))
    #expect(fired.json["deadlineLocal"] == .string("2026-06-21T21:57:21+02:00"))
    #expect(
      fired.json["action"]
        == .object([
          "type": .string("command"), "path": .string("/usr/local/bin/dim"), "user": .string("alice"),
        ]), "arguments are not shown")
    let located = LocateView(LocateAnswer(position: S.fresh, wanted: 50, waited: .seconds(2.3456), note: nil))
    #expect(located.json["waited"] == .number(2.346))
    #expect(located.json["position"]?["age"] == .number(1.2))
    let moved = SignificantChangeEvent(from: nil, to: S.position, distance: 1234.56)
    #expect(moved.json["distance"] == .number(1234.6))
  }

  @Test func serverCountersMatchTheCoreList() throws {
    // Each counter a distinct value, so a name mapped to the wrong field shows.
    var c = ServerCounters()
    c.accepted = 1
    c.refusedTooMany = 2
    c.droppedSlow = 3
    c.droppedHandshake = 4
    c.invalidJSON = 5
    c.invalidRequests = 6
    c.tooLarge = 7
    c.unknownMethods = 8
    c.beforeHandshake = 9
    c.permissionDenied = 10
    let view = ServerView(sessions: 11, counters: c)
    #expect(try ServerView(json: view.json) == view)
    #expect(view.json.object?.keys == ["sessions"] + c.all.map(\.name))
  }
}
