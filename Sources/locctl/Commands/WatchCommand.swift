import LocCore
import LocHost
import LocProtocol

/// `locctl watch [--events KIND,...] [--json] [--reconnect]`: streams events until interrupted.
enum WatchCommand {
  static let kinds = EventKind.allCases.map(\.rawValue)

  static let spec = CommandSpec(
    name: "watch", summary: "stream events (position, zone, sun, timers, sources) until Ctrl-C",
    usage: ["watch [--events KIND,...] [--json] [--reconnect]"],
    options: [
      .flag("reconnect", "when locd stops or restarts, wait for it to come back and go on"),
      .valued(
        "events", "KIND,...", "only these kinds: " + kinds.joined(separator: ", "), completion: .words(kinds)),
    ],
    help: """
      One line per event: the local time in the zone in effect (with its abbreviation), the event's
      kind and what happened. --json prints each event message of the protocol (PROTOCOL.md) on a line
      of its own instead. Every kind is watched but sky, which may come every second while the
      satellites move (--events sky lists them; locctl sky --watch draws them). A subscription to location events keeps the receiver on while the watch
      runs; --events without location does not. When a reload of locd's configuration leaves this
      session's access with nothing to watch, locctl says so and exits with status 4. When locd stops
      (systemctl stop or restart, SIGTERM) it says so to its clients: watch prints that notice and
      exits with status 5, unless --reconnect is given, which waits for locd to come back (trying
      once a second), says so and goes on watching.
      """,
    examples: ["locctl watch", "locctl watch --events timer-fired,timezone-changed --json"],
    needsDaemon: true, run: run)

  static func run(_ invocation: Invocation) throws(UsageError) -> Int32 {
    try invocation.noPositionals()
    // Every kind but `sky`, which may come every second while satellites move; `--events sky`
    // asks for it.
    var wanted = Set(EventKind.allCases).subtracting([.sky])
    if let list = invocation.value("events") {
      wanted = []
      for word in list.split(separator: ",") {
        guard let kind = EventKind(rawValue: String(word)) else {
          throw UsageError(
            "--events: unknown event kind '\(word)'" + Suggestion.hint(for: String(word), among: kinds)
              + "; kinds: " + kinds.joined(separator: ", "))
        }
        wanted.insert(kind)
      }
    }
    let reconnect = invocation.flag("reconnect")
    return withDaemon(invocation) { first throws(ControlClient.Failure) in
      var client = first
      var zone: ScreenZone? = nil
      // Set once a simulation that ends with locd (`--exit-at-end`) has finished: the
      // connection closing after that is the end of the stream, not a failure.
      var simulationOver = false
      var subscribed = false
      var reconnected = false
      while true {
        let event: EventMessage
        do throws(ControlClient.Failure) {
          if !subscribed {
            if !invocation.json {
              let status = try client.call(.status)
              zone = ScreenZone(status.timezone.zone.id, fallbackOffset: status.timezone.zone.offset ?? 0)
            }
            _ = try client.call(.subscribe(wanted))
            if reconnected { printError("locctl watch: locd is back") }
            subscribed = true
          }
          event = try client.nextEvent()
        } catch {
          let stopping = Self.isStopping(error)
          if simulationOver, stopping != nil || Self.isClosed(error) { return ExitStatus.ok }
          guard reconnect, stopping != nil || Self.isClosed(error) else {
            guard let stopping else { throw error }
            Output.flush()
            printError("locctl watch: \(stopping)")
            return ExitStatus.stopped
          }
          Output.flush()
          printError(
            "locctl watch: \(stopping ?? "the connection to locd closed"); waiting for it to come back")
          client = try Self.waitForDaemon(invocation)
          subscribed = false
          reconnected = true
          continue
        }
        // Kinds of a newer daemon are left out, as the protocol asks of clients.
        guard event.data.kind != nil else { continue }
        if invocation.json {
          Output.line(ServerMessage.event(event).line)
        } else if var screen = zone {
          if case .timezoneChanged(let change) = event.data {
            screen = ScreenZone(change.to.id, fallbackOffset: change.to.offset ?? 0)
            zone = screen
          }
          Output.line(render(event, zone: screen))
        }
        Output.flush()
        if case .accessChanged(let change) = event.data, change.events.isEmpty {
          printError(
            "locctl watch: access is now \(change.to) (\(change.reason.word)); nothing left to watch")
          return ExitStatus.permission
        }
        if case .simulationFinished(let s) = event.data, s.exitAtEnd { simulationOver = true }
      }
    }
  }

  /// The daemon's notice when `error` is locd saying it stops (`daemon-stopping`).
  static func isStopping(_ error: ControlClient.Failure) -> String? {
    guard case .daemon(let reply) = error, reply.code == .known(.daemonStopping) else { return nil }
    return reply.message
  }

  /// Whether `error` is the connection ending or breaking without a word.
  static func isClosed(_ error: ControlClient.Failure) -> Bool {
    if case .protocolError = error { return true }
    return false
  }

  /// `--reconnect`: tries to connect once a second until locd answers again; a failure
  /// other than locd not (yet) being there ends the watch.
  static func waitForDaemon(_ invocation: Invocation) throws(ControlClient.Failure) -> ControlClient {
    while true {
      Clocks.sleep(microseconds: 1_000_000)
      do throws(ControlClient.Failure) {
        return try ControlClient(path: invocation.socketPath, client: "locctl")
      } catch {
        switch error {
        case .notRunning, .protocolError, .timedOut: continue
        case .daemon(let reply) where reply.code == .known(.daemonStopping): continue
        default: throw error
        }
      }
    }
  }

  /// `2026-06-21 21:22:03 CEST  timer-fired  dusk (sunset-30m), deadline 21:22:03 CEST`.
  static func render(_ e: EventMessage, zone: ScreenZone) -> String {
    let text: String
    switch e.data {
    case .location(let l):
      let p = l.position
      if let position = p.position {
        let words = PositionWords.words(tier: p.tier, provenance: p.provenance).joined(separator: " ")
        var t = "\(words) " + Measures.coordinate(position.coordinate, accuracy: position.accuracy)
        if let a = position.accuracy { t += " " + Measures.accuracy(a) }
        if let speed = l.fix?.speed, speed.value >= 0.5 { t += ", " + Measures.speed(speed) }
        text = t
      } else {
        text = "none: \(p.reason ?? "")"
      }
    case .significantChange(let c):
      text = "moved" + (c.distance.map { " \(Int($0.value)) m" } ?? "")
    case .timerFired(let f):
      var t = "\(f.name) (\(f.rule)), deadline \(zone.clock(f.deadline, seconds: true))"
      if f.missed > 0 { t += ", late, for \(f.missed) missed" }
      text = t
    case .timezoneChanged(let z):
      var t = "\(z.from?.id ?? "none") -> \(z.to.id)"
      if let o = z.to.offset { t += " (UTC\(TimeFormat.utcOffset(seconds: o)))" }
      text = t + " [\(z.reason.word)]"
    case .solarRegenerated(let r):
      let today = r.after.first
      var t = "\(r.reason.word), \(r.timezone), \(today.map { "\($0.date)" } ?? "no position")"
      if case .at(let sunset)? = today?[.sunset] { t += ", sunset \(zone.clock(sunset))" }
      text = t
    case .acquisition(let a):
      text = "\(a.from.word) -> \(a.to.word) (\(a.reason))"
    case .sourceStatus(let s):
      var t = "\(s.uri) \(Measures.state(s))"
      if let err = s.lastError, err != s.fault?.reason { t += " (\(err))" }
      if let f = s.fault {
        let (headline, rest) = Measures.fault(f, now: e.time, zone: zone)
        t += "; " + headline + rest
      }
      text = t
    case .sky(let s):
      text = "\(s.source) " + Measures.satellites(s.summary)
    case .authorization(let a):
      text = "\(a.app) \(a.status.word), \(a.accuracy.word)" + (a.provisional ? ", provisional" : "")
    case .agentPrompt(.ask(let p)):
      text =
        "\(p.prompt) \(p.kind.word): \(p.app) (uid \(p.uid), \(p.verified.word)) asks for \(p.requested.word)"
    case .agentPrompt(.withdrawn(let prompt, let reason)):
      text = "\(prompt) withdrawn: \(reason)"
    case .accessChanged(let a):
      let lost = a.unsubscribed.sorted().map(\.rawValue).joined(separator: ", ")
      text = "\(a.from) -> \(a.to) [\(a.reason.word)]" + (lost.isEmpty ? "" : "; unsubscribed from \(lost)")
    case .beaconsRanged(let r):
      text = BeaconsLiveCommands.render(r)
    case .beaconRegion(let r):
      text = BeaconsLiveCommands.render(r)
    case .heading(let h):
      text = HeadingCommand.render(h)
    case .lightDark(let l):
      text = ModeCommand.line(l.schedule, zone: zone) + " [\(l.reason.word)]"
    case .region(let r):
      text = "\"\(r.id)\" \(r.event.word), now \(r.state.word) (since \(zone.clock(r.since, seconds: true)))"
    case .visit(let v):
      var t =
        "\(v.event.word) " + Measures.coordinate(v.coordinate, accuracy: v.accuracy) + " "
        + Measures.accuracy(v.accuracy)
      t += ", arrived \(zone.clock(v.arrival))"
      if let d = v.departure { t += ", left \(zone.clock(d))" }
      text = t
    case .simulationFinished(let s):
      text = "replay done at \(s.time.map { zone.dateTime($0) } ?? "-")" + (s.exitAtEnd ? "; locd exits" : "")
    case .other(_, let data):
      text = data.serialized
    }
    return "\(zone.dateTime(e.time))  \(Style.bold(e.data.name))  \(text)"
  }
}
