import LocCore
import LocHost
import LocProtocol

/// The lines of the services locd runs beside the position: chrony, NMEA out, the gpsd and
/// GeoClue faces, the simulation and acquisition.
extension StatusCommand {
  /// "to chrony at /run/chrony.locd.sock: 120 samples, last offset +0.251 s", or since when
  /// and why they fail or the socket is refused, then what was withheld and why
  /// (`[Time] ChronySocket=`, TIME.md).
  static func describe(chrony c: ChronyStatusView, zone: ScreenZone) -> String {
    var text = "to chrony at \(c.socket): "
    let withheld = c.untrusted + c.disagreeing
    if let r = c.refusal {
      let since = zone.clock(r.since, seconds: true)
      text += Style.yellow("refused since \(since) (\(r.message)), \(c.socketRefused) samples not sent")
    } else if let error = c.lastError {
      let since = c.failingSince.map { " since " + zone.clock($0, seconds: true) } ?? ""
      text += Style.yellow("failing\(since) (\(error)), \(c.sent) of \(c.sent + c.failed) samples sent")
    } else if c.sent > 0 {
      text += "\(c.sent) sample\(c.sent == 1 ? "" : "s")"
      if let offset = c.lastOffset { text += ", last offset " + signed(offset) + " s" }
    } else {
      text += withheld > 0 ? "no sample sent" : "no sample yet (no fix from a live receiver)"
    }
    var why: [String] = []
    if c.untrusted > 0 {
      let last = c.lastUntrusted.map { " (last from \($0.source), written by \(writer($0)))" } ?? ""
      why.append("\(c.untrusted) from sources that may not set the clock" + last)
    }
    if c.disagreeing > 0 {
      let bound = c.maxDisagreement.map { ", more than " + TimeSpan.format($0) } ?? ""
      let last = c.lastDisagreement.map { " (last \(signed($0.offset)) s from it\(bound))" } ?? ""
      why.append("\(c.disagreeing) off the synchronised clock" + last)
    }
    if !why.isEmpty { text += Style.yellow("; withheld: " + why.joined(separator: ", ")) }
    return text
  }

  /// `+0.251`, `-3600.000`: an offset in seconds with its sign.
  static func signed(_ seconds: Double) -> String { (seconds >= 0 ? "+" : "") + Numbers.fixed(seconds, 3) }

  /// Who wrote a withheld sample's fix, in words.
  static func writer(_ w: ChronyStatusView.Withheld) -> String {
    let uid = w.uid.map { " (uid \($0))" } ?? ""
    switch w.writer.known {
    case .localUser?: return "a local user" + uid
    case .unknownUser?: return "a user the kernel did not name"
    case .datagram?: return "anyone who can send a datagram"
    case .remoteHost?: return "another host"
    case .recording?: return "a recording"
    case .namedUser?: return "a named user" + uid
    case .device?, .privileged?: return "root"
    case nil: return w.writer.word + uid
    }
  }

  /// "/run/locd/nmea0 -> /dev/pts/3, read; 120 sentences (36 relayed, 0 dropped)", or that
  /// the pty could not be made (`[NMEAOut] Enable=yes`, docs/NMEAOUT.md; issue 43, item 10:
  /// it was only in --json).
  static func describe(nmeaOut n: NMEAOutStatusView) -> String {
    guard let pty = n.pty else { return Style.yellow("\(n.link): no pseudo-terminal (see the log)") }
    func count(_ name: String) -> Int { n.counters.first { $0.name == name }?.value ?? 0 }
    let state = n.reading ? "read" : "not read"
    return "\(n.link) -> \(pty), \(state); \(count("sentences")) sentences written, "
      + "\(count("relayed")) relayed, \(count("dropped")) dropped"
  }

  /// "on /run/locd/gpsd.sock, 127.0.0.1:2947: 3 clients (2 watching)", or that it listens
  /// nowhere (`[Gpsd] Enable=yes`, docs/GPSD.md).
  static func describe(gpsd g: GpsdStatusView) -> String {
    guard !g.endpoints.isEmpty else { return Style.yellow("listening nowhere (see the log)") }
    let clients = "\(g.clients) client\(g.clients == 1 ? "" : "s")"
    var text = "on \(g.endpoints.joined(separator: ", ")): \(clients) (\(g.watchers) watching)"
    if let dropped = g.counters.first(where: { $0.name == "droppedSlow" })?.value, dropped > 0 {
      text += ", \(dropped) dropped for not reading"
    }
    return text
  }

  /// "on the system bus, 2 clients (1 active), 1 agent", or why locd does not serve GeoClue2;
  /// with `verbose` the face's counters on the next line.
  static func describe(geoclue g: GeoClueStatusView, verbose: Bool) -> String {
    func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
    var text: String
    switch g.state {
    case .known(.serving):
      text = "on the system bus, \(count(g.clients, "client")) (\(g.activeClients) active), "
      text += count(g.agents.count, "agent")
    case .known(.starting):
      text = "starting (asking the system bus for org.freedesktop.GeoClue2)"
    default:
      text = Style.yellow("not serving org.freedesktop.GeoClue2: " + (g.reason ?? g.state.word))
    }
    if verbose { text += "\n" + String(repeating: " ", count: 13) + counters(g.counters) }
    return text
  }

  /// "playing, simulated time 2026-06-21 21:57:05 WEST; paused 3 time(s) ...": the replay
  /// clock's simulation (`locd --clock replay`), in the screen's zone.
  static func describe(simulation sim: SimulationView, zone: ScreenZone, locctl: String = "locctl") -> String
  {
    var parts = [sim.state.word]
    if sim.state == .known(.waiting) { parts[0] += " for the first subscriber ('\(locctl) watch' starts it)" }
    if let t = sim.time { parts.append("simulated time \(zone.dateTime(t))") }
    if sim.pauses > 0 {
      parts.append(
        "paused \(sim.pauses) time(s) for full client queues (\(TimeFormat.duration(sim.pausedFor)))")
    }
    if sim.exitAtEnd { parts.append("locd exits at the end") }
    return parts.joined(separator: "; ")
  }

  /// "idle (on-demand), receivers released; next refresh 08:15 CET; last settled ±4 m at
  /// 08:00 CET" or "acquiring since 08:00 CET (manual, start); gives up at 08:01 CET".
  static func describe(acquisition a: AcquisitionView, zone: ScreenZone) -> String {
    func clock(_ t: Instant?) -> String? { t.map { zone.clock($0) } }
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
      if let m = accuracy { text += " " + Measures.accuracy(m) }
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
