import LocCore
import LocProtocol
import Testing

@Suite struct TimerWireTests {
  func decode(_ line: String) -> Result<(RequestID, WireRequest), WireRequestFailure> {
    WireRequest.decode(Array(line.utf8))
  }

  @Test func addTimerRequests() throws {
    let ok = try decode(
      #"{"id":1,"method":"add-timer","params":{"name":"lamp","rule":"sunset-30m Mon-Fri","unit":"lamp.service","missed":"once"}}"#
    ).get()
    guard case .request(.addTimer(let t)) = ok.1 else {
      Issue.record("expected add-timer, got \(ok.1)")
      return
    }
    #expect(
      t.name == "lamp" && t.action == .startUnit("lamp.service") && t.missed == .once && t.origin == .runtime)
    #expect(t.rule.description == "sunset-30m Mon-Fri")
    for (line, words) in [
      (#"{"id":1,"method":"add-timer","params":{"name":"x","rule":"sunsett"}}"#, "neither"),
      (#"{"id":1,"method":"add-timer","params":{"name":"../x","rule":"sunset"}}"#, "timer name"),
      (
        #"{"id":1,"method":"add-timer","params":{"name":"x","rule":"sunset","command":"/bin/sh"}}"#,
        "no commands"
      ),
      (
        #"{"id":1,"method":"add-timer","params":{"name":"x","rule":"sunset","missed":"never"}}"#,
        "skip, once or all"
      ),
      (#"{"id":1,"method":"show-timer","params":{}}"#, "timer name"),
    ] {
      guard case .failure(let f) = decode(line) else {
        Issue.record("\(line) should fail")
        continue
      }
      #expect(f.error.code == .invalidParams)
      #expect(f.error.message.contains(words), "\(f.error.message)")
    }
  }

  @Test func timerFiredEventNamesTheLocalDeadline() throws {
    let rule = try TimerRule(parsing: "22:00")
    let deadline = Instant(iso8601: "2026-06-21T20:00:00Z")!
    let firing = TimerFiring(
      name: "ten", rule: rule, action: .event,
      occurrence: TimerOccurrence(date: CivilDate(year: 2026, month: 6, day: 21)!, instant: deadline),
      firedAt: deadline.adding(.milliseconds(2)), missed: 0)
    let local = LocalDateTime(date: CivilDate(year: 2026, month: 6, day: 21)!, hour: 22)!
    let message = ServerMessage.event(
      EventMessage(.timerFired(firing, zone: "Europe/Madrid", local: local), at: firing.firedAt))
    guard case .event(let e) = try ServerMessage.decode(message.lineBytes.dropLast()),
      case .timerFired(let d) = e.data
    else {
      Issue.record("expected a timer-fired event: \(message.line)")
      return
    }
    #expect(e.data.name == "timer-fired")
    // 22:00 in Madrid in June is CEST, UTC+2: 20:00Z, as the deadline says.
    #expect(d.deadlineLocal.description == "2026-06-21T22:00:00+02:00")
    #expect(d.deadlineLocal.instant == deadline)
    #expect(d.late == .milliseconds(2))
    #expect(d.missed == 0)
  }
}
