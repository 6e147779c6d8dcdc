import LocCore
import LocProtocol
import LocSystem

/// `locctl timers [--json]`, `locctl timers show NAME [--json]`,
/// `locctl timers add NAME RULE... [--unit UNIT] [--missed skip|once|all]`,
/// `locctl timers remove NAME`.
enum TimersCommand: LocctlCommand {
  static let name = "timers"
  static let summary = "list timers with their next deadline; add, remove or show one"

  static let usage = """
    usage: locctl timers [--json]
           locctl timers show NAME [--json]
           locctl timers add NAME RULE [DAYS] [--unit UNIT] [--missed skip|once|all]
           locctl timers remove NAME
    """

  static func run(_ arguments: [String], socket: String) -> Int32 {
    guard let options = parseOptions(arguments, valued: ["unit", "missed"], flags: ["json"], command: name)
    else {
      return ExitStatus.usage
    }
    let json = options.flag("json")
    let words = options.positionals
    switch words.first {
    case nil:
      guard options.value("unit") == nil, options.value("missed") == nil else { return badUsage() }
      return withDaemon(socket) { client throws(ControlClient.Failure) in
        let result = try client.call(.listTimers)
        print(json ? result.json.serialized + "\n" : renderList(result), terminator: "")
        return ExitStatus.ok
      }
    case "show"?:
      guard words.count == 2 else { return badUsage() }
      return withDaemon(socket) { client throws(ControlClient.Failure) in
        let timer = try client.call(.showTimer(words[1])).timer
        print(json ? timer.json.serialized + "\n" : renderOne(timer), terminator: "")
        return ExitStatus.ok
      }
    case "add"?:
      guard words.count >= 3 else { return badUsage() }
      return add(name: words[1], rule: words[2...].joined(separator: " "), options, socket: socket)
    case "remove"?:
      guard words.count == 2 else { return badUsage() }
      return withDaemon(socket) { client throws(ControlClient.Failure) in
        _ = try client.call(.removeTimer(words[1]))
        print("timer \(words[1]) removed")
        return ExitStatus.ok
      }
    default:
      return badUsage()
    }
  }

  static func add(name: String, rule text: String, _ options: CommandLineOptions, socket: String) -> Int32 {
    let rule: TimerRule
    do { rule = try TimerRule(parsing: text) } catch {
      printError("locctl timers add: \(error)")
      return ExitStatus.usage
    }
    var missed = MissedEventPolicy.skip
    if let word = options.value("missed") {
      guard let policy = MissedEventPolicy(rawValue: word) else {
        printError("locctl timers add: --missed must be skip, once or all")
        return ExitStatus.usage
      }
      missed = policy
    }
    return withDaemon(socket) { client throws(ControlClient.Failure) in
      let call = Call.addTimer(name, rule: rule, unit: options.value("unit"), missed: missed)
      let timer = try client.call(call).timer
      print(options.flag("json") ? timer.json.serialized + "\n" : renderOne(timer), terminator: "")
      return ExitStatus.ok
    }
  }

  static func badUsage() -> Int32 {
    printError(usage)
    return ExitStatus.usage
  }

  /// `2026-06-21 21:22:03 CEST` from a timer's next local deadline and abbreviation, or "-".
  static func deadline(_ t: TimerView) -> String {
    guard let local = t.nextLocal?.local else { return "-" }
    let clock = TimeFormat.clock(
      secondOfDay: local.hour * 3600 + local.minute * 60 + local.second, seconds: true)
    return "\(local.date) \(clock)" + (t.abbreviation.map { " " + $0 } ?? "")
  }

  static func action(_ t: TimerView) -> String {
    switch t.action {
    case .unit(let unit): return "unit " + unit
    case .command(let path, _): return "command " + path
    case .event: return "event"
    }
  }

  static func renderList(_ result: TimerListResult) -> String {
    var out = ""
    if result.timers.isEmpty {
      out += "no timers (add one with 'locctl timers add NAME RULE', or a file in /etc/locd/timers.d)\n"
    } else {
      let rows = result.timers.map { t in [t.name, deadline(t), t.rule, action(t), t.reason] }
      let headers = ["NAME", "NEXT (LOCAL)", "RULE", "ACTION", "WHY"]
      var widths = headers.map(\.count)
      for r in rows { for i in 0..<4 { widths[i] = max(widths[i], r[i].count) } }
      func line(_ cells: [String]) -> String {
        (0..<4).map { cells[$0].padded(widths[$0]) }.joined(separator: "  ") + "  " + cells[4] + "\n"
      }
      out += Style.bold(line(headers).dropLast() + "") + "\n"
      for r in rows { out += line(r) }
    }
    for p in result.problems {
      out += Style.yellow("problem: ") + p + "\n"
    }
    return out
  }

  static func renderOne(_ t: TimerView) -> String {
    var out = ""
    func row(_ label: String, _ value: String) { out += Style.bold(label.padded(11)) + value + "\n" }
    row("Timer:", t.name)
    row("Rule:", t.rule)
    row("Action:", action(t))
    row("Missed:", t.missed.rawValue)
    row("From:", t.file ?? "added at run time")
    row("Next:", deadline(t) + (t.next.map { "  (\($0.iso8601()))" } ?? ""))
    row("Why:", t.reason)
    row("Zone:", t.timezone)
    row("Last fired:", t.lastFired?.iso8601(fractionDigits: 3) ?? "never")
    return out
  }
}

extension String {
  /// The string padded with spaces to `width` characters.
  fileprivate func padded(_ width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}
