import LocCore
import LocHost
import LocProtocol

/// `locctl status [--verbose] [--json]`: what locd knows, on one screen, every time in the
/// zone in effect with its abbreviation.
enum StatusCommand {
  static let spec = CommandSpec(
    name: "status", summary: "position, fix, time zone, sun, timers and sources",
    usage: ["status [--verbose] [--json]"],
    options: [
      .flag("verbose", short: "v", "also the counters of sources, rejected fixes, the socket and GeoClue2")
    ],
    help: """
      The position with its tier (fix, cached, manual or none), what it came from (gnss, wifi, ip,
      static, manual, cached), accuracy and age; altitude, speed and course when the receiver gives
      them; the manual location when one is set, also while a fix is in use; the static location file;
      network positioning (off, or the service, when it last asked, how often); values from
      sources, the service, the static file or set-location refused or raised to a floor for
      lying beyond what their kind can give (implausible); the time zone in effect, the local time, and whether the system's zone is the same; today's
      sunrise and sunset and where the Sun is now; your light/dark mode and its next transitions
      (locctl mode); the next timer; every source with its trust, the
      fixes it drops and how far its clock is off; the satellites the receiver sees (used, in view,
      best signal: locctl sky); the receiver; the apps using the location; with
      [GeoClue] Enable=yes, whether locd serves GeoClue2 on the system bus, its clients and agents. In
      degraded mode it says why there is no position and what to do. Every time is in the zone in
      effect, on locd's clock: under locd --clock replay the local time, the Sun now and every time
      left are those of the simulated time. --json prints the status object of the protocol
      (PROTOCOL.md), counters included.
      """,
    examples: ["locctl status", "locctl status --json | jq .position"],
    needsDaemon: true, run: run)

  static func run(_ invocation: Invocation) throws(UsageError) -> Int32 {
    try invocation.noPositionals()
    return withDaemon(invocation) { client throws(ControlClient.Failure) in
      let status = try client.call(.status)
      if invocation.json {
        Output.line(status.json.serialized)
      } else {
        // Your light/dark schedule beside the status (a daemon before 1.10 has none).
        let schedule = try? client.call(.lightDark())
        Output.write(
          render(
            status, verbose: invocation.flag("verbose"), now: ScreenZone.now(daemon: status.now),
            lightDark: schedule, locctl: invocation.locctlCommand))
      }
      return ExitStatus.ok
    }
  }

  /// The screen: label, value rows.
  /// `locctl` is the command line the hints name: with `--socket PATH` given, the same
  /// socket (`locctl --socket PATH`).
  static func render(
    _ s: StatusView, verbose: Bool, now: Instant, lightDark: LightDarkView? = nil, locctl: String = "locctl"
  ) -> String {
    var out = ""
    func row(_ label: String, _ value: String) { out += Style.bold(label.padded(13)) + value + "\n" }
    let zone = ScreenZone(s.timezone.zone.id, fallbackOffset: s.timezone.zone.offset ?? 0)
    if s.simulation?.state == .known(.waiting) {
      // No receiver to connect: the replay starts with the first subscriber.
      position(s.position) { label, value in row(label, label == "To fix:" ? "run '\(locctl) watch'" : value)
      }
    } else {
      position(s.position, row)
    }
    motion(s, row)
    if let manual = s.manual {
      var text = "\(manual.coordinate.latitude.value), \(manual.coordinate.longitude.value)"
      if let name = manual.name { text += " \"\(Style.visible(name))\"" }
      text +=
        s.position.provenance == .known(.manual)
        ? " (in use)" : " (used when there is no fix, static location or cached position)"
      row("Manual:", text)
    }
    if let file = s.staticFile {
      let state =
        file.problem.map { Style.red("unusable") + " — \(Style.visible($0))" }
        ?? (file.inUse
          ? (s.position.provenance == .known(.staticFile)
            ? "in use" : "present (a better position is in use)")
          : "absent")
      row("Static file:", "\(Style.visible(file.path)): \(state)")
    }
    if let n = s.network { network(n, zone: zone, row) }
    if let b = s.outOfBounds { outOfBounds(b, zone: zone, verbose: verbose, row) }
    if let f = s.fix { row("Fix:", fix(f)) }
    timeZone(s.timezone, row)
    row("Local time:", zone.dateTime(now))
    systemZone(s.timezone, zone: zone, now: now, row)
    sun(s, zone: zone, now: now, row)
    if let l = lightDark {
      var text = ModeCommand.line(l, zone: zone, now: now)
      if let f = s.lightDark?.followers, f > 0 { text += " (\(f) following; locctl mode)" }
      row("Light/dark:", text)
    }
    if s.timers.count > 0 {
      var text = "\(s.timers.count) defined"
      if let next = s.timers.next, let at = next.next {
        text += "; next \(next.name) at \(zone.near(at, now: now))"
      }
      row("Timers:", text + " (locctl timers)")
    }
    for (i, source) in s.sources.enumerated() {
      var text =
        source.uri + "  " + Measures.state(source, replayWaiting: s.simulation?.state == .known(.waiting))
      // An outage's fault is the error that began it; the latest attempt's is `lastError`.
      if let err = source.lastError, err != source.fault?.reason { text += " (\(err))" }
      if let trust = source.trust { text += ", trust \(trust.word)" }
      let indent = "\n" + String(repeating: " ", count: 13)
      if let f = source.fault {
        let (headline, rest) = Measures.fault(f, now: now, zone: zone)
        text += indent + Style.yellow(headline) + rest
      }
      if let d = source.dropping {
        text +=
          indent + Style.yellow("\(d.count) fix\(d.count == 1 ? "" : "es") dropped as \(d.reason.word)")
          + " since \(zone.clock(d.since, seconds: true)): \(d.detail)"
      }
      if let offsetSeconds = source.clockOffset {
        text +=
          indent + "fix times \(offsetSeconds > .zero ? "ahead of" : "behind") locd's clock by "
          + SourceFixReport.span(offsetSeconds)
      }
      if verbose, !source.counters.isEmpty {
        text += "\n" + String(repeating: " ", count: 13) + counters(source.counters)
      }
      row(i == 0 ? "Sources:" : "", text)
    }
    if let sky = s.satellites { row("Satellites:", Measures.satellites(sky)) }
    if let a = s.acquisition { row("Receiver:", describe(acquisition: a, zone: zone)) }
    if let b = s.beacons, b.scanning || b.counters.contains(where: { $0.value > 0 }) {
      row(
        "Beacons:",
        "\(b.scanning ? "scanning" : "not scanning"), \(b.ranging) ranging, \(b.monitors) monitoring, "
          + "\(b.tracked) transmitters in range")
    }
    if let r = s.regions { row("Regions:", describe(regions: r, zone: zone, verbose: verbose)) }
    if let h = s.heading, h.sessions > 0 || s.sources.contains(where: { $0.uri.hasPrefix("compass:") }) {
      let wanting = h.sessions == 1 ? "1 session wants heading" : "\(h.sessions) sessions want heading"
      // The engine's claim is a wish; without a compass: source nothing is claimed (issue 43).
      let compass =
        s.sources.contains(where: { $0.uri.hasPrefix("compass:") })
        ? "compass \(h.claimed ? "claimed" : "not claimed")" : "no compass source (Source=compass: reads one)"
      row("Heading:", "\(compass), \(wanting), \(h.eligible) may have it")
    }
    if verbose {
      row("Rejected:", counters(s.rejectedFixes))
      let server = s.server.counters.all.filter { $0.value > 0 }
      row("Clients:", "\(s.server.sessions) connected" + (server.isEmpty ? "" : "; " + counters(server)))
      row("Started:", zone.dateTime(s.daemon.startedAt))
    }
    if let apps = s.apps { self.apps(apps, row) }
    if let g = s.geoclue { row("GeoClue2:", describe(geoclue: g, verbose: verbose)) }
    if let c = s.chrony { row("Time:", describe(chrony: c, zone: zone)) }
    if let g = s.gpsd { row("gpsd face:", describe(gpsd: g)) }
    if let n = s.nmeaOut { row("NMEA out:", describe(nmeaOut: n)) }
    if let sim = s.simulation { row("Replay:", describe(simulation: sim, zone: zone, locctl: locctl)) }
    if let problem = s.daemon.stateProblem { row("State:", Style.yellow(problem)) }
    if let f = s.daemon.stateFilesFault {
      row(
        "Saving:",
        Style.yellow(
          "failing since \(zone.clock(f.since, seconds: true)): \(f.reason); changes since are in effect, not saved"
        ))
    }
    return out
  }

  /// `3 regions of 2 apps, visits for 1 app; next fix due 08:14:20 because region boundary
  /// 12.0 km away at 40 m/s`.
  static func describe(regions r: RegionsStatusView, zone: ScreenZone, verbose: Bool) -> String {
    var text = "\(r.regions) region\(r.regions == 1 ? "" : "s") of \(r.apps) app\(r.apps == 1 ? "" : "s")"
    if r.visitApps > 0 {
      text +=
        ", visits for \(r.visitApps) app\(r.visitApps == 1 ? "" : "s")" + (r.visiting ? " (visiting)" : "")
    }
    if let due = r.nextFixDue {
      text += "; next fix due \(zone.clock(due, seconds: true))"
      if let because = r.because { text += " because \(because)" }
    }
    if verbose { text += "\n" + String(repeating: " ", count: 13) + counters(r.counters) }
    return text
  }

  /// Who has the location right now: the counterpart of the status-bar arrow.
  static func apps(_ apps: AppsStatusView, _ row: (String, String) -> Void) {
    let using = apps.using.map { u in
      "\(u.app) (uid \(u.uid)\(u.accuracy.word == "reduced" ? ", reduced" : "")\(u.background ? ", background" : ""))"
    }
    row(
      "Apps:",
      using.isEmpty ? "none using the location (\(apps.connected) connected)" : using.joined(separator: ", "))
    for problem in apps.problems { row("", Style.yellow(problem)) }
  }

  /// `name 3, name 0` for counters.
  static func counters(_ list: [Counter]) -> String {
    list.isEmpty ? "none" : list.map { "\($0.name) \($0.value)" }.joined(separator: ", ")
  }

  /// The position row, with the reason when it is not a fresh fix and the remedy in
  /// degraded mode.
  static func position(_ p: ResolvedPositionView, _ row: (String, String) -> Void) {
    guard let position = p.position else {
      row("Position:", Style.red("none") + " — " + (p.reason ?? "no position"))
      if let remedy = p.remedy { row("To fix:", remedy) }
      return
    }
    var text = Measures.coordinate(position.coordinate, accuracy: position.accuracy)
    if let acc = position.accuracy { text += " " + Measures.accuracy(acc) }
    let words = PositionWords.words(tier: p.tier, provenance: p.provenance)
    var detail = [p.tier == .fix ? Style.green(words[0]) : Style.yellow(words[0])] + words.dropFirst()
    if let age = p.age { detail.append(age < .seconds(1) ? "<1 s old" : "\(TimeFormat.duration(age)) old") }
    if let name = position.name { detail.append("\"\(Style.visible(name))\"") }
    text += "  (" + detail.joined(separator: ", ") + ")"
    row("Position:", text)
    if p.tier != .fix, let reason = p.reason { row("", reason) }
  }

  /// Altitude, speed and course, when known.
  static func motion(_ s: StatusView, _ row: (String, String) -> Void) {
    var parts: [String] = []
    if let alt = s.position.position?.altitude ?? s.fix?.altitudeMSL {
      parts.append("altitude " + Measures.height(alt))
    }
    if let speed = s.fix?.speed {
      var text = "speed " + Measures.speed(speed)
      if let track = s.fix?.track, speed.value >= 0.5 {
        text += ", course \(Int(track.value.rounded()) % 360)° (\(compass(track.value)))"
      }
      parts.append(text)
    }
    if !parts.isEmpty, s.position.tier == .fix { row("", parts.joined(separator: "; ")) }
  }

  /// `N`, `NE`, ... for a bearing in degrees.
  static func compass(_ degrees: Double) -> String {
    let names = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
    let sector = Int(((degrees.truncatingRemainder(dividingBy: 360) + 360 + 22.5) / 45)) % 8
    return names[sector]
  }

  /// `3D, gps, 9 satellites (12 in view), HDOP 0.9`.
  static func fix(_ f: FixSummaryView) -> String {
    var parts = [modeName(f.mode)]
    if let q = f.quality { parts.append(q.word) }
    if let n = f.satellitesUsed {
      var sats = "\(n) satellites"
      if let v = f.satellitesInView { sats += " (\(v) in view)" }
      parts.append(sats)
    }
    if let h = f.hdop { parts.append("HDOP \(Numbers.short(h))") }
    return parts.joined(separator: ", ")
  }

  /// The time zone row, and how near a border is when it is near.
  static func timeZone(_ z: ZoneStatusView, _ row: (String, String) -> Void) {
    var extra: [String] = []
    if let abbr = z.zone.abbreviation { extra.append(abbr) }
    if let off = z.zone.offset { extra.append("UTC" + TimeFormat.utcOffset(seconds: off)) }
    extra.append("from \(z.zone.origin.word)")
    row("Time zone:", z.zone.id + " (" + extra.joined(separator: ", ") + ")")
    if let reason = z.reason, reason != "\(z.zone.id) from the position" { row("", reason) }
    if let d = z.borderDistance?.value {
      row("", "a zone border is \(Measures.distance(Meters(d))) away")
    }
  }

  /// Whether this machine's zone is the one locd detected (what timedatectl users look for),
  /// and with `SetSystemTimeZone=yes` how locd's call to set it ended (`timezone.system`).
  static func systemZone(
    _ z: ZoneStatusView, zone screen: ScreenZone, now: Instant, _ row: (String, String) -> Void
  ) {
    let detected = z.zone.id
    // This machine's /etc/localtime is the truth; locd's view of it is the fallback.
    guard let system = ZoneDatabase.systemZoneName() ?? z.system?.zone else {
      row("System zone:", "unknown (no /etc/localtime)")
      return
    }
    guard let setting = z.system else {
      if system == detected {
        row("System zone:", "\(system) (the same)")
      } else {
        row(
          "System zone:",
          Style.yellow(system)
            + " — not \(detected); locd sets it only with SetSystemTimeZone=yes (locd.conf(5))")
      }
      return
    }
    if let wanted = setting.wanted, let problem = setting.problem {
      var text = Style.yellow(system) + " — locd could not set \(wanted): \(problem)"
      if let since = setting.since { text += "; failing since \(screen.near(since, now: now))" }
      if let retry = setting.retryAt { text += ", tries again at \(screen.near(retry, now: now))" }
      row("System zone:", text)
    } else if let wanted = setting.wanted {
      row("System zone:", "\(system) — setting \(wanted)")
    } else if system == detected {
      let when = setting.setAt.map { ", set by locd at \(screen.near($0, now: now))" } ?? ""
      row("System zone:", "\(system) (the same\(when))")
    } else if z.zone.origin == .known(.position) {
      row(
        "System zone:",
        Style.yellow(system)
          + " — not \(detected) (changed since locd set it; locd sets it at the next zone change)")
    } else {
      row("System zone:", "\(system) (locd sets it from the position, and has none)")
    }
  }

  /// Today's sunrise and sunset, and where the Sun is now with the next change of period.
  static func sun(_ s: StatusView, zone: ScreenZone, now: Instant, _ row: (String, String) -> Void) {
    guard let sun = s.sun, let position = s.position.position else {
      row("Sun:", "unknown (no position)")
      return
    }
    let rise = sun.sunrise.map { zone.clock($0) } ?? "none"
    let set = sun.sunset.map { zone.clock($0) } ?? "none"
    var text = "sunrise \(rise), sunset \(set)"
    if let note = sun.note { text += " — \(note)" }
    row("Sun:", text)
    row("", SunNow(coordinate: position.coordinate, at: now).summary(zone: zone))
  }

  static func modeName(_ mode: FixMode) -> String {
    switch mode {
    case .threeD: return "3D"
    case .twoD: return "2D"
    case .noFix: return "no fix"
    }
  }
}
