import LocCore
import LocProtocol
import LocSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `locctl watch [--json] [--events K,K]`: streams events until interrupted.
enum WatchCommand: LocctlCommand {
  static let name = "watch"
  static let summary = "stream events (location, changes, timers, sources) until Ctrl-C"

  static func run(_ arguments: [String], socket: String) -> Int32 {
    guard let options = parseOptions(arguments, valued: ["events"], flags: ["json"], command: name) else {
      return ExitStatus.usage
    }
    var kinds = Set(EventKind.allCases)
    if let list = options.value("events") {
      kinds = []
      for word in list.split(separator: ",") {
        guard let kind = EventKind(rawValue: String(word)) else {
          let known = EventKind.allCases.map(\.rawValue).joined(separator: ", ")
          printError("locctl watch: unknown event kind '\(word)'; known: \(known)")
          return ExitStatus.usage
        }
        kinds.insert(kind)
      }
    }
    // Line-buffered output so a pipe (tests, `| grep`) sees each event at once.
    StandardStreams.lineBufferOutput()
    return withDaemon(socket) { client throws(ControlClient.Failure) in
      _ = try client.call(.subscribe(kinds))
      // Set once a simulation that ends with locd (`--exit-at-end`) has finished: the
      // connection closing after that is the end of the stream, not a failure.
      var simulationOver = false
      while true {
        let event: EventMessage
        do throws(ControlClient.Failure) {
          event = try client.nextEvent()
        } catch {
          guard simulationOver, case .protocolError = error else { throw error }
          return ExitStatus.ok
        }
        // Kinds of a newer daemon are left out, as the protocol asks of clients.
        guard event.data.kind != nil else { continue }
        if options.flag("json") {
          print(ServerMessage.event(event).line)
        } else {
          print(render(event))
        }
        if case .accessChanged(let change) = event.data, change.events.isEmpty {
          printError(
            "locctl watch: access is now \(change.to) (\(change.reason.word)); nothing left to watch")
          return ExitStatus.permission
        }
        if case .simulationFinished(let s) = event.data, s.exitAtEnd { simulationOver = true }
      }
    }
  }

  static func render(_ e: EventMessage) -> String {
    let text: String
    switch e.data {
    case .location(let l):
      let p = l.position
      if let position = p.position {
        var t =
          "\(p.tier.rawValue) \(position.coordinate.latitude.value), \(position.coordinate.longitude.value)"
        if let a = position.accuracy { t += " ±\(Int(a.value.rounded())) m" }
        text = t
      } else {
        text = "none: \(p.reason ?? "")"
      }
    case .significantChange(let c):
      text = "moved" + (c.distance.map { " \(Int($0.value)) m" } ?? "")
    case .timerFired(let f):
      var t = "\(f.name) (\(f.rule)) deadline \(f.deadlineLocal)"
      if f.missed > 0 { t += ", late, for \(f.missed) missed" }
      text = t
    case .timezoneChanged(let z):
      var t = "\(z.from?.id ?? "none") -> \(z.to.id)"
      if let o = z.to.offset { t += " (UTC\(TimeFormat.utcOffset(seconds: o)))" }
      text = t + " [\(z.reason.word)]"
    case .solarRegenerated(let r):
      let today = r.after.first
      var t = "\(r.reason.word), \(r.timezone), \(today.map { "\($0.date)" } ?? "no position")"
      if case .at(let sunset)? = today?[.sunset] { t += " sunset \(sunset.iso8601())" }
      text = t
    case .acquisition(let a):
      text = "\(a.from.word) -> \(a.to.word) (\(a.reason))"
    case .sourceStatus(let s):
      text = "\(s.uri) \(s.state.word)" + (s.lastError.map { " (\($0))" } ?? "")
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
    case .simulationFinished(let s):
      text = "replay done at \(s.time.map { $0.iso8601() } ?? "-")" + (s.exitAtEnd ? "; locd exits" : "")
    case .other(_, let data):
      text = data.serialized
    }
    return "\(e.time.iso8601(fractionDigits: 6)) \(Style.bold(e.data.name)) \(text)"
  }
}
