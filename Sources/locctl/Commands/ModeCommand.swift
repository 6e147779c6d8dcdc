import LocCore
import LocHost
import LocProtocol

/// `locctl mode [dark|light|toggle|auto] [--watch [--count N]] [--json]`: your light/dark
/// schedule (docs/LIGHTDARK.md): the mode now and the next transitions; sets the mode by hand
/// until the next transition, or goes back to the schedule; follows it as it changes.
enum ModeCommand {
  static let spec = CommandSpec(
    name: "mode", summary: "light or dark by the Sun: show, set, toggle or follow your mode",
    usage: ["mode [--json]", "mode dark|light|toggle|auto [--json]", "mode --watch [--count N] [--json]"],
    options: [
      .flag("watch", "print the mode again each time it changes, until interrupted"),
      .valued("count", "N", "with --watch, stop after N changes"),
    ],
    arguments: [.words(ModeChange.allCases.map(\.rawValue))],
    help: """
      Your light/dark schedule as locd works it out: the mode now (light or dark), since when,
      and the next two transitions, for your rules (dark at sunset and light at sunrise unless
      locd-session(1) gave others from ~/.config/locd/session.conf). 'dark' or 'light' sets the
      mode by hand until the next transition; 'toggle' sets the other one; 'auto' goes back to
      the schedule at once. locd-session, which turns the schedule into darkman's D-Bus
      interface, the desktop portal's color-scheme and the dark-mode.d and light-mode.d
      scripts, follows the change. --watch prints the schedule again at each change (a
      transition, an override, a move to another city, a resume). Any local user may ask: the
      times are worked out for a 25 km cell, never your position, and you get no coordinate
      (PRIVACY.md). --json prints the protocol's schedule object (and light-dark events).
      """,
    examples: ["locctl mode", "locctl mode dark", "locctl mode toggle", "locctl mode --watch"],
    needsDaemon: true, run: run)

  static func run(_ invocation: Invocation) throws(UsageError) -> Int32 {
    var change: ModeChange? = nil
    if let word = invocation.positionals.first {
      guard let c = ModeChange(rawValue: word) else {
        throw UsageError("'\(word)' is not a mode change: use dark, light, toggle or auto")
      }
      change = c
      if invocation.positionals.count > 1 {
        throw UsageError("unexpected argument '\(invocation.positionals[1])'")
      }
    }
    let watch = invocation.flag("watch")
    var count: Int? = nil
    if let text = invocation.value("count") {
      guard watch else { throw UsageError("--count goes with --watch") }
      guard let n = Int(text), n > 0 else { throw UsageError("--count must be a positive number") }
      count = n
    }
    if watch, change != nil { throw UsageError("--watch follows the schedule; set the mode without it") }
    let json = invocation.json
    if watch { StandardStreams.lineBufferOutput() }
    return withDaemon(invocation) { client throws(ControlClient.Failure) in
      let schedule = try client.call(change.map { .setMode($0) } ?? .lightDark(follow: watch))
      let now = client.hello?.now ?? ScreenZone.now()
      let zone = ScreenZone(schedule.timezone)
      if json {
        Output.line(schedule.json.serialized)
      } else if watch {
        Output.line("\(zone.dateTime(now))  \(line(schedule, zone: zone, now: now))")
      } else {
        Output.line(render(schedule, zone: zone, now: now))
      }
      guard watch else { return ExitStatus.ok }
      var printed = 0
      while count.map({ printed < $0 }) ?? true {
        let event = try client.nextEvent()
        guard case .lightDark(let e) = event.data else { continue }
        if json {
          Output.line(ServerMessage.event(event).line)
        } else {
          let zone = ScreenZone(e.schedule.timezone)
          Output.line(
            "\(zone.dateTime(event.time))  \(line(e.schedule, zone: zone, now: event.time)) [\(e.reason.word)]"
          )
        }
        printed += 1
      }
      return ExitStatus.ok
    }
  }

  /// The schedule for a person, a few lines:
  ///
  ///     Mode: dark since 21:57:13 CEST
  ///     Next: light at 06:03:40 CEST, then dark at Mon 21:58:02 CEST
  ///     Rules: dark at sunset, light at sunrise (Europe/Madrid)
  static func render(_ s: LightDarkView, zone: ScreenZone, now: Instant) -> String {
    var lines = ["Mode: " + mode(s, zone: zone, now: now)]
    if !s.transitions.isEmpty { lines.append("Next: " + next(s, zone: zone, now: now)) }
    if let note = s.note { lines.append("Note: " + note) }
    lines.append("Rules: dark at \(s.dark), light at \(s.light) (\(s.timezone))")
    return lines.joined(separator: "\n")
  }

  /// One line, for `--watch`, `watch` and `status`: `dark since 21:57:13 CEST; light at 06:03:40 CEST`.
  static func line(_ s: LightDarkView, zone: ScreenZone, now: Instant) -> String {
    var text = mode(s, zone: zone, now: now)
    if !s.transitions.isEmpty { text += "; " + next(s, zone: zone, now: now) }
    return text
  }

  /// As `line`, at the event's own time (`watch`).
  static func line(_ s: LightDarkView, zone: ScreenZone) -> String {
    line(s, zone: zone, now: s.since ?? s.transitions.first?.at ?? ScreenZone.now())
  }

  private static func mode(_ s: LightDarkView, zone: ScreenZone, now: Instant) -> String {
    guard let mode = s.mode else { return "unknown" + (s.note.map { " (\($0))" } ?? "") }
    if let o = s.override {
      let until = o.until.map { " until \(zone.near($0, now: now))" } ?? " until the next transition"
      let scheduled = s.scheduled.map { "; by the schedule \($0.rawValue)" } ?? ""
      return "\(mode.rawValue), set by hand\(until)\(scheduled)"
    }
    return mode.rawValue + (s.since.map { " since \(zone.near($0, now: now))" } ?? "")
  }

  private static func next(_ s: LightDarkView, zone: ScreenZone, now: Instant) -> String {
    s.transitions.map { "\($0.mode.rawValue) at \(zone.near($0.at, now: now))" }.joined(separator: ", then ")
  }
}
