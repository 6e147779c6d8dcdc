import LocCore
import LocHost
import LocProtocol

/// `locctl wait RULE|timezone-changed [--timeout DURATION] [--json]`: blocks until a solar
/// event (or a rule such as `sunset-30m Mon-Fri` or `07:30`) or a change of time zone, for
/// scripts: `locctl wait sunset-30m && dim-screen`.
enum WaitCommand {
  /// Words that wait for a zone change.
  static let zoneWords = ["timezone-changed", "timezone"]

  static let spec = CommandSpec(
    name: "wait", summary: "wait for a solar event, a rule's time or a time-zone change (for scripts)",
    usage: [
      "wait EVENT[+|-OFFSET] [DAYS] [--timeout DURATION] [--json]", "wait HH:MM [DAYS] [--timeout DURATION]",
      "wait timezone-changed [--timeout DURATION]",
    ],
    options: [.valued("timeout", "DURATION", "give up after this long (30s, 10min, 2h), exit status 1")],
    arguments: [.words(RuleText.eventNames + zoneWords + ["Mon-Fri", "Sat,Sun"])],
    help: """
      Returns when the next occurrence of the rule comes, as a timer with that rule would fire
      (TIMERS.md): solar events are planned at locd's position in the zone in effect and follow
      moves, zone changes, daylight-saving nights and clock steps. Event names take - or _
      (civil-dusk, civil_dusk); an offset needs its unit (sunset-30m, not sunset-30).
      'timezone-changed' returns when the zone in effect or its UTC offset changes. With locd in
      --clock replay the wait is in simulated time. Says first, on standard error, what it waits
      for and until when, as planned then at locd's position, zone and clock ("waiting for sunset
      until 2026-12-08 17:41 CET, tomorrow (...)"). Prints when it happened (--json: the wait
      result of the protocol); at --timeout, that it did not happen and when it was expected
      (--json: {"target", "timedOut": true, "timeout", "expected"}). Exit status 0, or 1 at
      --timeout or when locd goes away.
      """,
    examples: [
      "locctl wait sunset-30m && notify-send 'sunset in 30 minutes'", "locctl wait civil-dusk Mon-Fri",
      "locctl wait 07:30 --timeout 1d", "locctl wait timezone-changed --json",
    ],
    needsDaemon: true, run: run)

  /// Effectively forever (a century): without --timeout the wait has no deadline.
  static let forever: Duration = .seconds(100 * 365 * 86_400)

  static func run(_ invocation: Invocation) throws(UsageError) -> Int32 {
    guard !invocation.positionals.isEmpty else {
      throw UsageError("expected what to wait for, e.g. sunset-30m")
    }
    let text = invocation.positionals.joined(separator: " ")
    let target: WaitTarget = zoneWords.contains(text) ? .timezoneChange : .rule(try RuleText.rule(text))
    let timeout = try invocation.duration("timeout", in: .milliseconds(1)...forever)
    return withDaemon(invocation) { client throws(ControlClient.Failure) in
      // What it waits for and until when, as planned now at locd's position, zone and clock
      // (issue 43, item 7: after today's sunset, 'wait sunset' means tomorrow's).
      let expected = expectation(client, target: target, text: text)
      if !invocation.json { printError("locctl wait: \(expected.words)") }
      let result: WaitResult
      do throws(ControlClient.Failure) {
        result = try client.call(.wait(target), timeout: timeout ?? forever)
      } catch {
        guard case .timedOut = error, let timeout else { throw error }
        if invocation.json {
          var o: JSONObject = [
            "target": .string(text), "timedOut": .bool(true), "timeout": .number(timeout.seconds),
          ]
          o["expected"] = expected.at.map { .string($0.iso8601()) } ?? .null
          Output.line(JSON.object(o).serialized)
        } else {
          var line = "\(text): did not happen within \(TimeFormat.duration(timeout))"
          if let at = expected.at, let zone = expected.zone { line += "; expected \(zone.dateTime(at))" }
          Output.line(line)
        }
        return ExitStatus.failure
      }
      if invocation.json {
        Output.line(result.json.serialized)
      } else {
        Output.line(render(result))
      }
      return ExitStatus.ok
    }
  }

  /// `sunset-30m: 2026-06-21 21:22:03 CEST (sunset at 21:52:03 CEST)` or
  /// `timezone changed: Europe/Madrid -> Europe/Lisbon (UTC+01:00)`.
  static func render(_ r: WaitResult) -> String {
    if let o = r.occurrence {
      let zone = ScreenZone(o.timezone, fallbackOffset: o.deadlineLocal.offsetSeconds)
      var text = "\(o.rule): \(zone.dateTime(o.deadline))"
      if let event = o.event, let name = eventName(o.rule) {
        text += " (\(name) at \(zone.clock(event, seconds: true)))"
      }
      if o.late >= .seconds(1) { text += ", \(TimeFormat.duration(o.late)) late" }
      if let note = o.note { text += "; \(note)" }
      return text
    }
    guard let c = r.change else { return "done" }
    var text = "timezone changed: \(c.from?.id ?? "none") -> \(c.to.id)"
    if let o = c.to.offset { text += " (UTC\(TimeFormat.utcOffset(seconds: o)))" }
    return text + " [\(c.reason.word)]"
  }

  /// What a wait is for, in words, and when it is expected (nil: a zone change, or no plan).
  struct Expectation {
    var words: String
    var at: Instant?
    var zone: ScreenZone?
  }

  /// The next occurrence of `target` as planned now from locd's status: its position, its
  /// zone and its clock (the simulated one under --clock replay). A move, a zone change or a
  /// clock step may change it; the wait follows locd, not this plan.
  static func expectation(_ client: ControlClient, target: WaitTarget, text: String) -> Expectation {
    guard let s = try? client.call(.status) else { return Expectation(words: "waiting for \(text)") }
    let now = ScreenZone.now(daemon: s.now)
    let zoneID = s.timezone.zone.id
    guard case .rule(let rule) = target else {
      return Expectation(words: "waiting for the time zone to change (now \(zoneID))")
    }
    guard let rules = try? ZoneDatabase().rules(named: zoneID) else {
      return Expectation(words: "waiting for \(text) (no rules for \(zoneID) here to say when)")
    }
    let screen = ScreenZone(zoneID)
    var planner = TimerPlanner(zone: rules, coordinate: s.position.position?.coordinate)
    let plan = planner.next(rule, after: now, handledDate: nil)
    guard let next = plan.next else { return Expectation(words: "waiting for \(text): \(plan.reason)") }
    let days = next.date.daysSinceEpoch - rules.localDateTime(at: now).date.daysSinceEpoch
    let when = days == 0 ? "today" : days == 1 ? "tomorrow" : "in \(days) days"
    return Expectation(
      words: "waiting for \(text) until \(screen.dateTime(next.instant)), \(when) (\(plan.reason))",
      at: next.instant, zone: screen)
  }

  /// `sunset` of `sunset-30m Mon-Fri`; nil for a wall time.
  static func eventName(_ rule: String) -> String? {
    (try? TimerRule(parsing: rule))?.solarEvent.map(TimerRule.ruleName)
  }
}
