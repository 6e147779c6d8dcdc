import LocCore
import LocSystem

/// `locctl locate [--timeout S] [--accuracy M] [--json]`: one position, fresh if one comes in
/// time, else the best locd has, with where it came from.
enum LocateCommand: LocctlCommand {
  static let name = "locate"
  static let summary = "one position: waits up to --timeout for a fix of --accuracy, else the best known"

  static func run(_ arguments: [String]) -> Int32 {
    guard
      let options = parseOptions(arguments, valued: ["timeout", "accuracy"], flags: ["json"], command: name)
    else { return ExitStatus.usage }
    guard options.positionals.isEmpty else {
      printError("usage: locctl locate [--timeout SECONDS] [--accuracy METRES] [--json]")
      return ExitStatus.usage
    }
    var params: JSONObject = [:]
    if let t = options.value("timeout") {
      guard let s = Double(t), s >= 0, s <= 3600 else {
        printError("locctl locate: --timeout must be 0 to 3600 seconds")
        return ExitStatus.usage
      }
      params["timeout"] = .number(s)
    }
    if let a = options.value("accuracy") {
      guard let m = Double(a), m > 0, m <= 20_000_000 else {
        printError("locctl locate: --accuracy must be a number of metres above 0")
        return ExitStatus.usage
      }
      params["accuracy"] = .number(m)
    }
    return withDaemon { client throws(ControlClient.Failure) in
      let answer = try client.call("locate", params)
      let p = answer["position"] ?? .null
      let found = p["lat"]?.number != nil
      if options.flag("json") {
        print(answer.serialized)
      } else if found {
        print(render(answer), terminator: "")
      } else {
        printError("locctl: no position: \(p["reason"]?.string ?? "unknown reason")")
        if let remedy = p["remedy"]?.string { printError("locctl: to fix: \(remedy)") }
      }
      return found ? ExitStatus.ok : ExitStatus.failure
    }
  }

  static func render(_ a: JSON) -> String {
    let p = a["position"] ?? .null
    var line = "\(p["lat"]?.number ?? 0), \(p["lon"]?.number ?? 0)"
    if let acc = p["accuracy"]?.number { line += " ±\(Int(acc.rounded())) m" }
    var detail = [a["provenance"]?.string ?? "?"]
    switch a["provenance"]?.string {
    case "fresh":
      if let w = a["waited"]?.number, w >= 0.5 { detail.append("waited \(TimeFormat.duration(.seconds(w)))") }
    default:
      if let age = p["age"]?.number { detail.append("\(TimeFormat.duration(.seconds(age))) old") }
    }
    if let name = p["name"]?.string { detail.append("\"\(name)\"") }
    var out = line + "  (" + detail.joined(separator: ", ") + ")\n"
    if let note = a["note"]?.string { out += "  \(note)\n" }
    if a["provenance"]?.string != "fresh", let reason = p["reason"]?.string { out += "  \(reason)\n" }
    return out
  }
}
