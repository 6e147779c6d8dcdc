import LocCore
import LocProtocol
import LocSystem

/// `locctl app APP [--request when-in-use|always] [--purpose TEXT] [--background]
/// [--updates N] [--timeout SECONDS] [--json]`: talks to locd as app APP, for trying the
/// permission model from a shell and for tests: says hello as the app, says it is in the
/// foreground (unless `--background`), asks for authorization if told to, and prints its
/// authorization and, with `--updates`, the first N positions it is given.
enum AppCommand: LocctlCommand {
  static let name = "app"
  static let summary = "act as an app: ask for authorization, print what it is given"
  static let usageLine =
    "usage: locctl app APP [--request when-in-use|always] [--purpose TEXT] [--background] [--updates N] [--timeout S] [--json]"

  static func run(_ arguments: [String], socket: String) -> Int32 {
    guard
      let options = parseOptions(
        arguments, valued: ["request", "purpose", "updates", "timeout"], flags: ["background", "json"],
        command: name)
    else { return ExitStatus.usage }
    let level = options.value("request").map { AuthorizationLevel(rawValue: $0) }
    let updates = Int(options.value("updates") ?? "0")
    let timeout = Double(options.value("timeout") ?? "30")
    guard options.positionals.count == 1, level != .some(nil), let updates, updates >= 0, let timeout,
      timeout > 0
    else {
      printError(usageLine)
      return ExitStatus.usage
    }
    let app = options.positionals[0]
    let json = options.flag("json")
    let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(timeout * 1000)))
    do {
      let client = try ControlClient(path: socket, client: "locctl", app: app)
      guard let hello = client.hello?.app else {
        printError("locctl app: locd did not take this session as an app's")
        return ExitStatus.failure
      }
      var last = hello
      _ = try client.call(.subscribe([.authorization]))
      if !options.flag("background") { last = try client.call(.setActivity(.foreground)).authorization }
      if let level = level ?? nil {
        let purpose = options.value("purpose") ?? "locctl app"
        last = try client.call(.requestAuthorization(level, purpose: purpose)).authorization
      }
      show(last, json: json)
      if updates > 0 {
        // Events that came while waiting for a reply are not kept: show where it stands now.
        let now = try client.call(.startUpdates()).authorization
        if now != last { show(now, json: json) }
        last = now
      }
      var got = 0
      // Without updates: until the request is decided; with: until N positions came.
      while updates > 0 ? got < updates : last.prompt.known != PromptState.none {
        let left = deadline - ContinuousClock.now
        guard left > .zero else {
          printError("locctl app: timed out (\(last.status.word), prompt \(last.prompt.word))")
          return ExitStatus.failure
        }
        let event = try client.nextEvent(timeout: left)
        switch event.data {
        case .authorization(let a):
          last = a
          show(a, json: json)
        case .location(let l) where l.position.position != nil:
          got += 1
          print(json ? ServerMessage.event(event).line : WatchCommand.render(event))
        default: continue
        }
      }
      return ExitStatus.ok
    } catch {
      printError("locctl app: \(error)")
      if case .daemon(let reply) = error, reply.code == .known(.permissionDenied) {
        return ExitStatus.permission
      }
      if case .timedOut = error { printError("locctl app: timed out (\(timeout) s)") }
      return ExitStatus.failure
    }
  }

  static func show(_ a: AppStatusView, json: Bool) {
    if json {
      print(a.json.serialized)
    } else {
      var words = "\(a.app) (uid \(a.uid), \(a.verified.word)): \(a.status.word), \(a.accuracy.word) accuracy"
      if a.provisional { words += ", provisional" }
      if a.once { words += ", once" }
      if a.prompt.known != PromptState.none { words += ", prompt \(a.prompt.word)" }
      print(words)
    }
    StandardStreams.flushOutput()
  }
}
