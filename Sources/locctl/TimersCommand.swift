import LocCore
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

  static func run(_ arguments: [String]) -> Int32 {
    guard let options = parseOptions(arguments, valued: ["unit", "missed"], flags: ["json"], command: name)
    else {
      return ExitStatus.usage
    }
    let words = options.positionals
    switch words.first {
    case nil:
      guard options.value("unit") == nil, options.value("missed") == nil else { return badUsage() }
      return withDaemon { client throws(ControlClient.Failure) in
        let result = try client.call("list-timers")
        if options.flag("json") {
          print(result.serialized)
        } else {
          print(renderList(result), terminator: "")
        }
        return ExitStatus.ok
      }
    case "show"?:
      guard words.count == 2 else { return badUsage() }
      return withDaemon { client throws(ControlClient.Failure) in
        let result = try client.call("show-timer", ["name": .string(words[1])])
        let timer = result["timer"] ?? .null
        print(
          options.flag("json") ? timer.serialized : renderOne(timer),
          terminator: options.flag("json") ? "\n" : "")
        return ExitStatus.ok
      }
    case "add"?:
      guard words.count >= 3 else { return badUsage() }
      let rule = words[2...].joined(separator: " ")
      do { _ = try TimerRule(parsing: rule) } catch {
        printError("locctl timers add: \(error)")
        return ExitStatus.usage
      }
      var params: JSONObject = ["name": .string(words[1]), "rule": .string(rule)]
      if let unit = options.value("unit") { params["unit"] = .string(unit) }
      if let missed = options.value("missed") {
        guard MissedEventPolicy(rawValue: missed) != nil else {
          printError("locctl timers add: --missed must be skip, once or all")
          return ExitStatus.usage
        }
        params["missed"] = .string(missed)
      }
      return withDaemon { client throws(ControlClient.Failure) in
        let result = try client.call("add-timer", params)
        let timer = result["timer"] ?? .null
        print(options.flag("json") ? timer.serialized + "\n" : renderOne(timer), terminator: "")
        return ExitStatus.ok
      }
    case "remove"?:
      guard words.count == 2 else { return badUsage() }
      return withDaemon { client throws(ControlClient.Failure) in
        _ = try client.call("remove-timer", ["name": .string(words[1])])
        print("timer \(words[1]) removed")
        return ExitStatus.ok
      }
    default:
      return badUsage()
    }
  }

  static func badUsage() -> Int32 {
    printError(usage)
    return ExitStatus.usage
  }

  /// `2026-06-21 21:22:03 CEST` from a timer's `nextLocal` and `abbreviation`, or "-".
  static func deadline(_ t: JSON) -> String {
    guard let local = t["nextLocal"]?.string, local.count >= 19 else { return "-" }
    let chars = Array(local)
    let text = String(chars[0..<10]) + " " + String(chars[11..<19])
    return text + (t["abbreviation"]?.string.map { " " + $0 } ?? "")
  }

  static func action(_ t: JSON) -> String {
    let a = t["action"] ?? .null
    switch a["type"]?.string {
    case "unit"?: return "unit " + (a["unit"]?.string ?? "?")
    case "command"?: return "command " + (a["path"]?.string ?? "?")
    default: return "event"
    }
  }

  static func renderList(_ result: JSON) -> String {
    let timers = result["timers"]?.array ?? []
    var out = ""
    if timers.isEmpty {
      out += "no timers (add one with 'locctl timers add NAME RULE', or a file in /etc/locd/timers.d)\n"
    } else {
      let rows = timers.map { t in
        [
          t["name"]?.string ?? "?", deadline(t), t["rule"]?.string ?? "?", action(t),
          t["reason"]?.string ?? "",
        ]
      }
      let headers = ["NAME", "NEXT (LOCAL)", "RULE", "ACTION", "WHY"]
      var widths = headers.map(\.count)
      for r in rows { for i in 0..<4 { widths[i] = max(widths[i], r[i].count) } }
      func line(_ cells: [String]) -> String {
        (0..<4).map { cells[$0].padded(widths[$0]) }.joined(separator: "  ") + "  " + cells[4] + "\n"
      }
      out += Style.bold(line(headers).dropLast() + "") + "\n"
      for r in rows { out += line(r) }
    }
    for p in result["problems"]?.array ?? [] {
      out += Style.yellow("problem: ") + (p.string ?? "") + "\n"
    }
    return out
  }

  static func renderOne(_ t: JSON) -> String {
    var out = ""
    func row(_ label: String, _ value: String) { out += Style.bold(label.padded(11)) + value + "\n" }
    row("Timer:", t["name"]?.string ?? "?")
    row("Rule:", t["rule"]?.string ?? "?")
    row("Action:", action(t))
    row("Missed:", t["missed"]?.string ?? "?")
    row("From:", t["file"]?.string ?? "added at run time")
    row("Next:", deadline(t) + (t["next"]?.string.map { "  (\($0))" } ?? ""))
    row("Why:", t["reason"]?.string ?? "")
    row("Zone:", t["timezone"]?.string ?? "?")
    row("Last fired:", t["lastFired"]?.string ?? "never")
    return out
  }
}

extension String {
  /// The string padded with spaces to `width` characters.
  fileprivate func padded(_ width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}
