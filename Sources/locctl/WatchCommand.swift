import LocCore
import LocSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `locctl watch [--json] [--events K,K]`: streams events until interrupted.
enum WatchCommand: LocctlCommand {
  static let name = "watch"
  static let summary = "stream events (location, changes, timers, sources) until Ctrl-C"

  static func run(_ arguments: [String]) -> Int32 {
    guard let options = parseOptions(arguments, valued: ["events"], flags: ["json"], command: name) else {
      return ExitStatus.usage
    }
    let events: JSON =
      options.value("events").map { .array($0.split(separator: ",").map { .string(String($0)) }) }
      ?? .string("all")
    // Line-buffered output so a pipe (tests, `| grep`) sees each event at once.
    StandardStreams.lineBufferOutput()
    return withDaemon { client throws(ControlClient.Failure) in
      _ = try client.call("subscribe", ["events": events])
      while true {
        let message = try client.readMessage()
        guard message["type"]?.string == "event" else {
          if message["type"]?.string == "error" {
            printError("locctl watch: \(message["error"]?["message"]?.string ?? "error")")
          }
          continue
        }
        if options.flag("json") {
          print(message.serialized)
        } else {
          print(render(message))
        }
      }
    }
  }

  static func render(_ m: JSON) -> String {
    let name = m["event"]?.string ?? "?"
    let time = m["time"]?.string ?? ""
    let d = m["data"] ?? .null
    var text: String
    switch name {
    case "location":
      let p = d["position"] ?? .null
      if let lat = p["lat"]?.number, let lon = p["lon"]?.number {
        text = "\(p["tier"]?.string ?? "?") \(lat), \(lon)"
        if let a = p["accuracy"]?.number { text += " ±\(Int(a.rounded())) m" }
      } else {
        text = "none: \(p["reason"]?.string ?? "")"
      }
    case "significant-change":
      text = "moved"
      if let m = d["distance"]?.number { text += " \(Int(m)) m" }
    case "timer-fired":
      text =
        "\(d["name"]?.string ?? "?") (\(d["rule"]?.string ?? "?")) deadline \(d["deadlineLocal"]?.string ?? "?")"
      if let missed = d["missed"]?.number, missed > 0 { text += ", late, for \(Int(missed)) missed" }
    case "timezone-changed":
      text = "\(d["from"]?["id"]?.string ?? "none") -> \(d["to"]?["id"]?.string ?? "?")"
      if let o = d["to"]?["offset"]?.number { text += " (UTC\(TimeFormat.utcOffset(seconds: Int(o))))" }
      text += " [\(d["reason"]?.string ?? "?")]"
    case "solar-regenerated":
      let today = d["after"]?[0] ?? .null
      text =
        "\(d["reason"]?.string ?? "?"), \(d["timezone"]?.string ?? "?"), \(today["date"]?.string ?? "no position")"
      if let sunset = today["sunset"]?.string { text += " sunset \(sunset)" }
    case "acquisition":
      text = "\(d["from"]?.string ?? "?") -> \(d["to"]?.string ?? "?") (\(d["reason"]?.string ?? "?"))"
    case "source-status":
      text = "\(d["uri"]?.string ?? "?") \(d["state"]?.string ?? "?")"
      if let e = d["lastError"]?.string { text += " (\(e))" }
    default:
      text = d.serialized
    }
    return "\(time) \(Style.bold(name)) \(text)"
  }
}
