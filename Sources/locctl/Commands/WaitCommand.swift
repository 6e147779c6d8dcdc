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
      --clock replay the wait is in simulated time. Prints when it happened (--json: the wait
      result of the protocol); exit status 0, or 1 at --timeout or when locd goes away.
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
      let result: WaitResult
      do throws(ControlClient.Failure) {
        result = try client.call(.wait(target), timeout: timeout ?? forever)
      } catch {
        guard case .timedOut = error, let timeout else { throw error }
        printError("locctl wait: \(text) did not happen within \(TimeFormat.duration(timeout))")
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

  /// `sunset` of `sunset-30m Mon-Fri`; nil for a wall time.
  static func eventName(_ rule: String) -> String? {
    (try? TimerRule(parsing: rule))?.solarEvent.map(TimerRule.ruleName)
  }
}
