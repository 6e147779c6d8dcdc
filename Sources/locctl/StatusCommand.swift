import LocCore
import LocProtocol
import LocSystem

/// `locctl status [--json]`.
enum StatusCommand: LocctlCommand {
  static let name = "status"
  static let summary = "position, tier, sources, fix quality, time zone, sun"

  static func run(_ arguments: [String], socket: String) -> Int32 {
    guard let options = parseOptions(arguments, flags: ["json"], command: name) else {
      return ExitStatus.usage
    }
    guard options.positionals.isEmpty else {
      printError("locctl status: unexpected argument '\(options.positionals[0])'")
      return ExitStatus.usage
    }
    return withDaemon(socket) { client throws(ControlClient.Failure) in
      let status = try client.call(.status)
      if options.flag("json") {
        print(status.json.serialized)
      } else {
        print(render(status), terminator: "")
      }
      return ExitStatus.ok
    }
  }

  static func render(_ s: StatusView) -> String {
    var out = ""
    func row(_ label: String, _ value: String) {
      out += Style.bold(label.padding(11)) + value + "\n"
    }
    let offset = s.timezone.zone.offset ?? 0
    if s.simulation?.state == .known(.waiting) {
      // No receiver to connect: the replay starts with the first subscriber.
      position(s.position) { label, value in row(label, label == "To fix:" ? "run 'locctl watch'" : value) }
    } else {
      position(s.position, row)
    }
    if let f = s.fix {
      var parts = [modeName(f.mode)]
      if let q = f.quality { parts.append(q.word) }
      if let n = f.satellitesUsed {
        var sats = "\(n) satellites"
        if let v = f.satellitesInView { sats += " (\(v) in view)" }
        parts.append(sats)
      }
      if let h = f.hdop { parts.append("HDOP \(h)") }
      row("Fix:", parts.joined(separator: ", "))
    }
    zone(s.timezone, row)
    if let sun = s.sun {
      let rise = localClock(sun.sunrise, offset: offset) ?? "none"
      let set = localClock(sun.sunset, offset: offset) ?? "none"
      var text = "sunrise \(rise), sunset \(set) (\(sun.date))"
      if let note = sun.note { text += " — \(note)" }
      row("Sun:", text)
    } else {
      row("Sun:", "unknown (no position)")
    }
    for (i, source) in s.sources.enumerated() {
      var text = source.uri + "  " + source.state.word
      if let err = source.lastError { text += " (\(err))" }
      if let trust = source.trust { text += ", trust \(trust.word)" }
      let indent = "\n" + String(repeating: " ", count: 11)
      if let d = source.dropping {
        text +=
          indent + Style.yellow("\(d.count) fix\(d.count == 1 ? "" : "es") dropped as \(d.reason.word)")
          + " since \(localClock(d.since, offset: offset) ?? "?"): \(d.detail)"
      }
      if let offsetSeconds = source.clockOffset {
        text +=
          indent + "fix times \(offsetSeconds > .zero ? "ahead of" : "behind") this machine's clock by "
          + SourceFixReport.span(offsetSeconds)
      }
      if !source.counters.isEmpty {
        text +=
          "\n" + String(repeating: " ", count: 11)
          + source.counters.map { "\($0.name) \($0.value)" }.joined(separator: ", ")
      }
      row(i == 0 ? "Sources:" : "", text)
    }
    if let a = s.acquisition {
      row("Receiver:", describe(acquisition: a, offset: offset, zone: s.timezone.zone.abbreviation ?? ""))
    }
    if let b = s.beacons, b.scanning || b.counters.contains(where: { $0.value > 0 }) {
      row(
        "Beacons:",
        "\(b.scanning ? "scanning" : "not scanning"), \(b.ranging) ranging, \(b.monitors) monitoring, "
          + "\(b.tracked) transmitters in range")
    }
    row("Clients:", "\(s.server.sessions) connected")
    if let apps = s.apps {
      // The counterpart of the status-bar arrow: who has the location right now.
      let using = apps.using.map { u in
        "\(u.app) (uid \(u.uid)\(u.accuracy.word == "reduced" ? ", reduced" : "")\(u.background ? ", background" : ""))"
      }
      row(
        "Apps:",
        using.isEmpty
          ? "none using the location (\(apps.connected) connected)" : using.joined(separator: ", "))
      for problem in apps.problems { row("", Style.yellow(problem)) }
    }
    if let sim = s.simulation {
      row("Replay:", describe(simulation: sim, offset: offset, zone: s.timezone.zone.abbreviation ?? ""))
    }
    if let problem = s.daemon.stateProblem { row("State:", Style.yellow(problem)) }
    return out
  }

  /// The position row, with the reason when it is not a fresh fix and the remedy in
  /// degraded mode.
  static func position(_ p: ResolvedPositionView, _ row: (String, String) -> Void) {
    guard let position = p.position else {
      row("Position:", Style.red("none") + " — " + (p.reason ?? "no position"))
      if let remedy = p.remedy { row("To fix:", remedy) }
      return
    }
    var text = "\(position.coordinate.latitude.value), \(position.coordinate.longitude.value)"
    if let acc = position.accuracy { text += " ±\(Int(acc.value.rounded())) m" }
    let tierText = p.tier == .fix ? Style.green("fix") : Style.yellow(p.tier.rawValue)
    var detail = [tierText]
    if let age = p.age { detail.append("\(TimeFormat.duration(age)) old") }
    if let name = position.name { detail.append("\"\(Style.visible(name))\"") }
    text += "  (" + detail.joined(separator: ", ") + ")"
    row("Position:", text)
    if p.tier != .fix, let reason = p.reason { row("", reason) }
  }

  /// The time zone row, and how near a border is when it is near.
  static func zone(_ z: ZoneStatusView, _ row: (String, String) -> Void) {
    var text = z.zone.id
    var extra: [String] = []
    if let abbr = z.zone.abbreviation { extra.append(abbr) }
    if let off = z.zone.offset { extra.append("UTC" + TimeFormat.utcOffset(seconds: off)) }
    extra.append("from \(z.zone.origin.word)")
    text += " (" + extra.joined(separator: ", ") + ")"
    row("Time zone:", text)
    if let d = z.borderDistance?.value {
      row(
        "",
        d < 1000
          ? "a zone border is \(Int(d)) m away" : "a zone border is \((d / 100).rounded() / 10) km away")
    }
  }

  static func modeName(_ mode: FixMode) -> String {
    switch mode {
    case .threeD: return "3D"
    case .twoD: return "2D"
    case .noFix: return "no fix"
    }
  }
}

extension StatusCommand {
  /// "playing, simulated time 21:57:05 WEST on 2026-06-21; paused 3 times (1.2 s)": the
  /// replay clock's simulation (`locd --clock replay`), on the wall clock of `offset`.
  static func describe(simulation sim: SimulationView, offset: Int, zone: String) -> String {
    var parts = [sim.state.word]
    if sim.state == .known(.waiting) { parts[0] += " for the first subscriber ('locctl watch' starts it)" }
    if let t = sim.time, let clock = localClock(t, offset: offset) {
      let date = t.adding(seconds: Double(offset)).utcDate
      parts.append("simulated time \(clock)\(zone.isEmpty ? "" : " " + zone) on \(date)")
    }
    if sim.pauses > 0 {
      parts.append(
        "paused \(sim.pauses) time(s) for full client queues (\(TimeFormat.duration(sim.pausedFor)))")
    }
    if sim.exitAtEnd { parts.append("locd exits at the end") }
    return parts.joined(separator: "; ")
  }

  /// "idle (on-demand): settled ±4 m at 08:00; next refresh 08:15" or "acquiring since
  /// 08:00 (manual, start), gives up at 08:01": times on the wall clock of `offset`.
  static func describe(acquisition a: AcquisitionView, offset: Int, zone: String) -> String {
    let suffix = zone.isEmpty ? "" : " \(zone)"
    func clock(_ t: Instant?) -> String? { localClock(t, offset: offset).map { $0 + suffix } }
    let reasons = a.reasons.map(\.word).joined(separator: ", ")
    var parts: [String]
    switch a.phase {
    case .acquiring:
      var head = "acquiring"
      if let since = clock(a.since) { head += " since \(since)" }
      if !reasons.isEmpty { head += " (\(reasons))" }
      parts = [head]
      parts.append(clock(a.deadline).map { "gives up at \($0)" } ?? "held open (\(a.policy.word))")
    case .idle, .settled:
      parts = ["idle (\(a.policy.word)), receivers released"]
      if let next = clock(a.nextRefresh) { parts.append("next refresh \(next)") }
    }
    switch a.lastOutcome {
    case .settled(let at, let accuracy)?:
      var text = "last settled"
      if let m = accuracy { text += " ±\(Int(m.value.rounded())) m" }
      if let at = clock(at) { text += " at \(at)" }
      parts.append(text)
    case .timedOut(let at)?:
      parts.append("last timed out" + (clock(at).map { " at \($0)" } ?? ""))
    case nil:
      break
    }
    if a.pendingLocates > 0 { parts.append("\(a.pendingLocates) locate request(s) waiting") }
    return parts.joined(separator: "; ")
  }
}

extension String {
  func padding(_ width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}
