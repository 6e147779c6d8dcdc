import LocCore
import LocHost
import LocProtocol

/// `locctl timers [--json]`, `locctl timers show NAME`, `locctl timers add NAME RULE [DAYS]
/// [--unit UNIT] [--missed skip|once|all]`, `locctl timers remove NAME`.
enum TimersCommand {
  static let spec = CommandSpec(
    name: "timers", summary: "list timers by next deadline; show, add or remove one",
    usage: [
      "timers [--json]", "timers show NAME [--json]",
      "timers add NAME RULE [DAYS] [--unit UNIT] [--missed skip|once|all] [--json]", "timers remove NAME",
    ],
    options: [
      .valued("unit", "UNIT", "add: start this systemd unit when it fires"),
      .valued(
        "missed", "POLICY", "add: skip (default), once or all missed occurrences",
        completion: .words(["skip", "once", "all"])),
    ],
    arguments: [.words(["show", "add", "remove"]), .live(.timerNames), .none],
    help: """
      The list is sorted by the next deadline: NEXT (in the zone in effect), LEFT until then (on
      locd's clock: the simulated time under locd --clock replay), LAST
      time it fired, RESULT of its action the last time it ran (a command's exit status, a unit that
      could not be started: 'failed' is shown in full below the table), then the timer, its rule
      and action. Problems of timer files follow, including commands that cannot run as written (an
      unknown user, a user locd cannot switch to, a missing program). Rules are those of TIMERS.md:
      sunset-30m Mon-Fri, civil-dusk+10m, 07:30. Adding and removing needs admin access; runtime
      timers push timer-fired and may start a unit, never run a command.
      """,
    examples: [
      "locctl timers", "locctl timers show dim",
      "sudo locctl timers add lamp sunset-15m --unit lamp.service --missed once",
      "sudo locctl timers remove lamp",
    ],
    needsDaemon: true, run: run)

  static func run(_ invocation: Invocation) throws(UsageError) -> Int32 {
    let words = invocation.positionals
    let json = invocation.json
    switch words.first {
    case nil:
      guard invocation.value("unit") == nil, invocation.value("missed") == nil else {
        throw UsageError("--unit and --missed go with 'timers add'")
      }
      return withDaemon(invocation) { client throws(ControlClient.Failure) in
        let result = try client.call(.listTimers)
        Output.write(
          json ? result.json.serialized + "\n" : renderList(result, now: ScreenZone.now(daemon: result.now)))
        return ExitStatus.ok
      }
    case "show"?:
      guard words.count == 2 else { throw UsageError("expected: timers show NAME") }
      return withDaemon(invocation) { client throws(ControlClient.Failure) in
        let timer = try client.call(.showTimer(words[1])).timer
        Output.write(
          json
            ? timer.json.serialized + "\n" : renderOne(timer, now: ScreenZone.now(daemon: client.hello?.now)))
        return ExitStatus.ok
      }
    case "add"?:
      guard words.count >= 3 else { throw UsageError("expected: timers add NAME RULE [DAYS]") }
      return try add(name: words[1], rule: words[2...].joined(separator: " "), invocation)
    case "remove"?:
      guard words.count == 2 else { throw UsageError("expected: timers remove NAME") }
      return withDaemon(invocation) { client throws(ControlClient.Failure) in
        _ = try client.call(.removeTimer(words[1]))
        Output.line(json ? "{}" : "timer \(words[1]) removed")
        return ExitStatus.ok
      }
    case let other?:
      throw UsageError(
        "unknown subcommand '\(other)'" + Suggestion.hint(for: other, among: ["show", "add", "remove"]))
    }
  }

  static func add(name: String, rule text: String, _ invocation: Invocation) throws(UsageError) -> Int32 {
    guard TimerDefinition.isValidName(name) else {
      throw UsageError("'\(name)' is not a timer name: letters, digits, _ . @ -, at most 64")
    }
    let rule = try RuleText.rule(text)
    var missed = MissedEventPolicy.skip
    if let word = invocation.value("missed") {
      guard let policy = MissedEventPolicy(rawValue: word) else {
        throw UsageError("--missed '\(word)': must be skip, once or all")
      }
      missed = policy
    }
    return withDaemon(invocation) { client throws(ControlClient.Failure) in
      let call = Call.addTimer(name, rule: rule, unit: invocation.value("unit"), missed: missed)
      let timer = try client.call(call).timer
      Output.write(
        invocation.json
          ? timer.json.serialized + "\n" : renderOne(timer, now: ScreenZone.now(daemon: client.hello?.now)))
      return ExitStatus.ok
    }
  }

  static func action(_ t: TimerView) -> String {
    switch t.action {
    case .unit(let unit): return "unit " + unit
    case .command(let path, let user): return "command " + path + (user.map { " as \($0)" } ?? "")
    case .event: return "event"
    }
  }

  /// The timers by next deadline (none last, then by name).
  static func sorted(_ timers: [TimerView]) -> [TimerView] {
    timers.sorted { a, b in
      switch (a.next, b.next) {
      case (let x?, let y?): return x != y ? x < y : a.name < b.name
      case (.some, nil): return true
      case (nil, .some): return false
      case (nil, nil): return a.name < b.name
      }
    }
  }

  static func renderList(_ result: TimerListResult, now: Instant) -> String {
    var out = ""
    if result.timers.isEmpty {
      out += "no timers (add one with 'locctl timers add NAME RULE', or a file in /etc/locd/timers.d)\n"
    } else {
      let timers = sorted(result.timers)
      let zone = ScreenZone(timers[0].timezone, fallbackOffset: timers[0].nextLocal?.offsetSeconds ?? 0)
      let rows = timers.map { t in
        [
          t.next.map { zone.dateTime($0) } ?? "-",
          t.next.map { TimeFormat.duration($0.duration(since: now)) } ?? "-",
          t.lastFired.map { zone.near($0, now: now) } ?? "-",
          t.lastResult.map { $0.succeeded ? "ok" : "failed" } ?? "-",
          t.name, t.rule, action(t),
        ]
      }
      out += table(headers: ["NEXT", "LEFT", "LAST", "RESULT", "NAME", "RULE", "ACTION"], rows: rows)
      out += "\n\(timers.count) timer(s); times in \(zone.name)\n"
      for t in timers where t.next == nil { out += "\(t.name): no deadline: \(t.reason)\n" }
      for t in timers {
        guard let r = t.lastResult, !r.succeeded else { continue }
        out += Style.red("failed: ") + "\(t.name) at \(zone.near(r.at, now: now)): \(r.detail)\n"
      }
    }
    for p in result.problems { out += Style.yellow("problem: ") + p + "\n" }
    return out
  }

  /// Columns padded to their widest cell, the last one unpadded.
  static func table(headers: [String], rows: [[String]]) -> String {
    var widths = headers.map(\.count)
    for r in rows { for i in r.indices { widths[i] = max(widths[i], r[i].count) } }
    func line(_ cells: [String]) -> String {
      var text = ""
      for (i, cell) in cells.enumerated() {
        text += i == cells.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count + 2)
      }
      return text
    }
    return Style.bold(line(headers)) + "\n" + rows.map { line($0) + "\n" }.joined()
  }

  static func renderOne(_ t: TimerView, now: Instant) -> String {
    let zone = ScreenZone(t.timezone, fallbackOffset: t.nextLocal?.offsetSeconds ?? 0)
    var out = ""
    func row(_ label: String, _ value: String) { out += Style.bold(label.padded(13)) + value + "\n" }
    row("Timer:", t.name)
    row("Rule:", t.rule)
    row("Action:", action(t))
    row("Missed:", t.missed.rawValue)
    row("From:", t.file ?? "added at run time")
    var next =
      t.next.map { zone.dateTime($0) + " (in \(TimeFormat.duration($0.duration(since: now))))" } ?? "none"
    if t.next == nil { next += "" }
    row("Next:", next)
    row("Why:", t.reason)
    row("Last fired:", t.lastFired.map { zone.dateTime($0) } ?? "never")
    if let r = t.lastResult {
      let text = (r.succeeded ? "ok" : Style.red("failed")) + " at \(zone.dateTime(r.at)): \(r.detail)"
      row("Last result:", text)
    }
    row("Times in:", zone.name)
    return out
  }
}
