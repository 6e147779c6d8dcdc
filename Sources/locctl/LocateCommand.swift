import LocCore
import LocProtocol
import LocSystem

/// `locctl locate [--timeout S] [--accuracy M] [--json]`: one position, fresh if one comes in
/// time, else the best locd has, with where it came from.
enum LocateCommand: LocctlCommand {
  static let name = "locate"
  static let summary = "one position: waits up to --timeout for a fix of --accuracy, else the best known"

  /// The longest `timeout` the protocol allows (and `Timeout=` may be): without --timeout
  /// the daemon's own setting applies, so locctl waits up to this for the answer.
  static let longestTimeout: Duration = .seconds(3600)
  /// How much longer than the request's timeout locctl waits before it gives up on locd.
  static let answerMargin: Duration = .seconds(10)

  static func run(_ arguments: [String], socket: String) -> Int32 {
    guard
      let options = parseOptions(arguments, valued: ["timeout", "accuracy"], flags: ["json"], command: name)
    else { return ExitStatus.usage }
    guard options.positionals.isEmpty else {
      printError("usage: locctl locate [--timeout SECONDS] [--accuracy METRES] [--json]")
      return ExitStatus.usage
    }
    var timeout: Duration? = nil
    if let t = options.value("timeout") {
      guard let s = Double(t), s >= 0, s <= 3600 else {
        printError("locctl locate: --timeout must be 0 to 3600 seconds")
        return ExitStatus.usage
      }
      timeout = .milliseconds(Int64((s * 1000).rounded()))
    }
    var accuracy: Meters? = nil
    if let a = options.value("accuracy") {
      guard let m = Double(a), m > 0, m <= 20_000_000 else {
        printError("locctl locate: --accuracy must be a number of metres above 0")
        return ExitStatus.usage
      }
      accuracy = Meters(m)
    }
    return withDaemon(socket) { client throws(ControlClient.Failure) in
      let answer = try client.call(
        .locate(timeout: timeout, accuracy: accuracy), timeout: (timeout ?? longestTimeout) + answerMargin)
      let found = answer.position.position != nil
      if options.flag("json") {
        print(answer.json.serialized)
      } else if found {
        print(render(answer), terminator: "")
      } else {
        printError("locctl: no position: \(answer.position.reason ?? "unknown reason")")
        if let remedy = answer.position.remedy { printError("locctl: to fix: \(remedy)") }
      }
      return found ? ExitStatus.ok : ExitStatus.failure
    }
  }

  static func render(_ a: LocateView) -> String {
    let p = a.position
    guard let position = p.position else { return "" }
    var line = "\(position.coordinate.latitude.value), \(position.coordinate.longitude.value)"
    if let acc = position.accuracy { line += " ±\(Int(acc.value.rounded())) m" }
    var detail = [a.provenance.rawValue]
    if a.provenance == .fresh {
      if a.waited >= .milliseconds(500) { detail.append("waited \(TimeFormat.duration(a.waited))") }
    } else if let age = p.age {
      detail.append("\(TimeFormat.duration(age)) old")
    }
    if let name = position.name { detail.append("\"\(name)\"") }
    var out = line + "  (" + detail.joined(separator: ", ") + ")\n"
    if let note = a.note { out += "  \(note)\n" }
    if a.provenance != .fresh, let reason = p.reason { out += "  \(reason)\n" }
    return out
  }
}
