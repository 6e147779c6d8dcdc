import LocCore
import LocSystem

/// `locctl status [--json]`.
enum StatusCommand: LocctlCommand {
  static let name = "status"
  static let summary = "position, tier, sources, fix quality, time zone, sun"

  static func run(_ arguments: [String]) -> Int32 {
    guard let options = parseOptions(arguments, flags: ["json"], command: name) else {
      return ExitStatus.usage
    }
    guard options.positionals.isEmpty else {
      printError("locctl status: unexpected argument '\(options.positionals[0])'")
      return ExitStatus.usage
    }
    return withDaemon { client throws(ControlClient.Failure) in
      let status = try client.call("status")
      if options.flag("json") {
        print(status.serialized)
      } else {
        print(render(status), terminator: "")
      }
      return ExitStatus.ok
    }
  }

  static func render(_ s: JSON) -> String {
    var out = ""
    func row(_ label: String, _ value: String) {
      out += Style.bold(label.padding(11)) + value + "\n"
    }
    let p = s["position"] ?? .null
    let tier = p["tier"]?.string ?? "none"
    let offset = Int(s["timezone"]?["offset"]?.number ?? 0)
    if let lat = p["lat"]?.number, let lon = p["lon"]?.number {
      var text = "\(lat), \(lon)"
      if let acc = p["accuracy"]?.number { text += " ±\(Int(acc.rounded())) m" }
      let tierText: String
      switch tier {
      case "fix": tierText = Style.green("fix")
      case "cached": tierText = Style.yellow("cached")
      default: tierText = Style.yellow(tier)
      }
      var detail = [tierText]
      if let age = p["age"]?.number { detail.append("\(TimeFormat.duration(.seconds(age))) old") }
      if let name = p["name"]?.string { detail.append("\"\(name)\"") }
      text += "  (" + detail.joined(separator: ", ") + ")"
      row("Position:", text)
      if tier != "fix", let reason = p["reason"]?.string { row("", reason) }
    } else {
      row("Position:", Style.red("none") + " — " + (p["reason"]?.string ?? "no position"))
      if let remedy = p["remedy"]?.string { row("To fix:", remedy) }
    }
    if let f = s["fix"], !f.isNull {
      var parts = [f["mode"]?.number == 3 ? "3D" : f["mode"]?.number == 2 ? "2D" : "no fix"]
      if let q = f["quality"]?.string { parts.append(q) }
      if let n = f["satellitesUsed"]?.number {
        var sats = "\(Int(n)) satellites"
        if let v = f["satellitesInView"]?.number { sats += " (\(Int(v)) in view)" }
        parts.append(sats)
      }
      if let h = f["hdop"]?.number { parts.append("HDOP \(h)") }
      row("Fix:", parts.joined(separator: ", "))
    }
    if let z = s["timezone"], let id = z["id"]?.string {
      var text = id
      var extra: [String] = []
      if let abbr = z["abbreviation"]?.string { extra.append(abbr) }
      if let off = z["offset"]?.number { extra.append("UTC" + TimeFormat.utcOffset(seconds: Int(off))) }
      if let origin = z["origin"]?.string { extra.append("from \(origin)") }
      if !extra.isEmpty { text += " (" + extra.joined(separator: ", ") + ")" }
      row("Time zone:", text)
      if let d = z["borderDistance"]?.number {
        row(
          "",
          d < 1000
            ? "a zone border is \(Int(d)) m away" : "a zone border is \((d / 100).rounded() / 10) km away")
      }
    }
    if let sun = s["sun"], let date = sun["date"]?.string {
      let rise = localClock(sun["sunrise"]?.string, offset: offset) ?? "none"
      let set = localClock(sun["sunset"]?.string, offset: offset) ?? "none"
      var text = "sunrise \(rise), sunset \(set) (\(date))"
      if let note = sun["note"]?.string { text += " — \(note)" }
      row("Sun:", text)
    } else {
      row("Sun:", "unknown (no position)")
    }
    for (i, source) in (s["sources"]?.array ?? []).enumerated() {
      var text = (source["uri"]?.string ?? "?") + "  " + (source["state"]?.string ?? "?")
      if let err = source["lastError"]?.string { text += " (\(err))" }
      if let counters = source["counters"]?.object, !counters.members.isEmpty {
        text +=
          "\n" + String(repeating: " ", count: 11)
          + counters.members.map { "\($0.key) \(Int($0.value.number ?? 0))" }.joined(separator: ", ")
      }
      row(i == 0 ? "Sources:" : "", text)
    }
    if let a = s["acquisition"], !a.isNull {
      row(
        "Receiver:",
        describe(acquisition: a, offset: offset, zone: s["timezone"]?["abbreviation"]?.string ?? ""))
    }
    if let server = s["server"] {
      row("Clients:", "\(Int(server["sessions"]?.number ?? 0)) connected")
    }
    if let problem = s["daemon"]?["stateProblem"]?.string { row("State:", Style.yellow(problem)) }
    return out
  }
}

extension StatusCommand {
  /// "idle (on-demand): settled ±4 m at 08:00; next refresh 08:15" or "acquiring since
  /// 08:00 (manual, start), gives up at 08:01": times on the wall clock of `offset`.
  static func describe(acquisition a: JSON, offset: Int, zone: String) -> String {
    let suffix = zone.isEmpty ? "" : " \(zone)"
    func clock(_ key: String, _ o: JSON? = nil) -> String? {
      localClock((o ?? a)[key]?.string, offset: offset).map { $0 + suffix }
    }
    let policy = a["policy"]?.string ?? "?"
    let reasons = (a["reasons"]?.array ?? []).compactMap(\.string).joined(separator: ", ")
    var parts: [String]
    if a["phase"]?.string == "acquiring" {
      var head = "acquiring"
      if let since = clock("since") { head += " since \(since)" }
      if !reasons.isEmpty { head += " (\(reasons))" }
      parts = [head]
      parts.append(clock("deadline").map { "gives up at \($0)" } ?? "held open (\(policy))")
    } else {
      parts = ["idle (\(policy)), receivers released"]
      if let next = clock("nextRefresh") { parts.append("next refresh \(next)") }
    }
    if let o = a["lastOutcome"], !o.isNull {
      var text = o["result"]?.string == "settled" ? "last settled" : "last timed out"
      if let m = o["accuracy"]?.number { text += " ±\(Int(m.rounded())) m" }
      if let at = clock("at", o) { text += " at \(at)" }
      parts.append(text)
    }
    if let n = a["pendingLocates"]?.number, n > 0 { parts.append("\(Int(n)) locate request(s) waiting") }
    return parts.joined(separator: "; ")
  }
}

extension String {
  func padding(_ width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}
