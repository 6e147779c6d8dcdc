import LocCore
import LocHost
import LocProtocol

/// `locctl app APP [--request when-in-use|always] [--purpose TEXT] [--full-accuracy TEXT]
/// [--background] [--updates N] [--timeout DURATION] [--json]`: talks to locd as app APP, for
/// trying the permission model from a shell and for tests: says hello as the app, says it is
/// in the foreground (unless `--background`), asks for authorization if told to, and for
/// temporary full accuracy with `--full-accuracy`, and prints its authorization and, with
/// `--updates`, the first N positions it is given.
enum AppCommand {
  static let levels = ["when-in-use", "always"]

  static let spec = CommandSpec(
    name: "app", summary: "act as an app: ask for authorization, print what it is given",
    usage: [
      "app APP [--request when-in-use|always] [--purpose TEXT] [--full-accuracy TEXT] [--background] [--updates N] [--timeout DURATION] [--json]"
    ],
    options: [
      .valued("request", "LEVEL", "ask for when-in-use or always authorization", completion: .words(levels)),
      .valued("purpose", "TEXT", "the reason shown in the prompt (default 'locctl app')"),
      .valued("full-accuracy", "TEXT", "ask for temporary full accuracy, giving this reason"),
      .flag("background", "do not say the app is in the foreground"),
      .valued("updates", "N", "start updates and print the first N positions given"),
      .valued("timeout", "DURATION", "give up after this long (default 30s), exit status 1"),
    ],
    arguments: [.live(.appIDs)],
    help: """
      Talks to locd as app APP, to try the permission model from a shell: says it is in the
      foreground (unless --background), asks for authorization (--request) and for full
      accuracy until it is no longer in use (--full-accuracy: an app granted reduced accuracy,
      as Core Location's temporary full accuracy), and prints its authorization until the
      requests are decided, or the first N positions it is given
      (--updates). Exit status 1 when that does not happen within --timeout. --json prints the
      authorization objects and location events of the protocol (PROTOCOL.md, APPS.md).
      """,
    examples: [
      "locctl app org.example.Weather --request when-in-use --purpose forecasts",
      "locctl app org.example.Maps --request always --updates 3 --json",
    ],
    needsDaemon: true, run: run)

  static func run(_ invocation: Invocation) throws(UsageError) -> Int32 {
    guard invocation.positionals.count == 1 else {
      throw UsageError("expected one app id, e.g. org.example.Maps")
    }
    let app = invocation.positionals[0]
    var level: AuthorizationLevel? = nil
    if let word = invocation.value("request") {
      guard let l = AuthorizationLevel(rawValue: word) else {
        throw UsageError(
          "--request '\(word)': expected when-in-use or always" + Suggestion.hint(for: word, among: levels))
      }
      level = l
    }
    var updates = 0
    if let text = invocation.value("updates") {
      guard let n = Int(text), n >= 0 else {
        throw UsageError("--updates '\(text)': expected a count, 0 or more")
      }
      updates = n
    }
    let timeout =
      try invocation.duration("timeout", in: .milliseconds(1)...WaitCommand.forever) ?? .seconds(30)
    let json = invocation.json
    let deadline = ContinuousClock.now.advanced(by: timeout)
    do {
      let client = try ControlClient(path: invocation.socketPath, client: "locctl", app: app)
      guard let hello = client.hello?.app else {
        printError("locctl app: locd did not take this session as an app's")
        return ExitStatus.failure
      }
      var last = hello
      let zone =
        json || updates == 0 ? ScreenZone("UTC") : ScreenZone.inEffect(socketPath: invocation.socketPath)
      _ = try client.call(.subscribe([.authorization]))
      if !invocation.flag("background") { last = try client.call(.setActivity(.foreground)).authorization }
      if let level {
        let purpose = invocation.value("purpose") ?? "locctl app"
        last = try client.call(.requestAuthorization(level, purpose: purpose)).authorization
      }
      if let purpose = invocation.value("full-accuracy") {
        last = try client.call(.requestTemporaryFullAccuracy(purpose: purpose)).authorization
      }
      show(last, json: json)
      if updates > 0 {
        // Events that came while waiting for a reply are not kept: show where it stands now.
        let now = try client.call(.startUpdates()).authorization
        if now != last { show(now, json: json) }
        last = now
      }
      return try follow(client, last: last, updates: updates, until: deadline, json: json, zone: zone)
    } catch {
      Output.flush()
      printError("locctl app: \(error)")
      if case .timedOut = error { printError("locctl app: timed out (\(TimeFormat.duration(timeout)))") }
      return ExitStatus.of(error)
    }
  }

  /// Without updates: until the request is decided; with: until `updates` positions came.
  static func follow(
    _ client: ControlClient, last: AppStatusView, updates: Int, until deadline: ContinuousClock.Instant,
    json: Bool, zone: ScreenZone
  ) throws(ControlClient.Failure) -> Int32 {
    var last = last
    var got = 0
    while updates > 0 ? got < updates : last.prompt.known != PromptState.none {
      let left = deadline - ContinuousClock.now
      guard left > .zero else {
        Output.flush()
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
        if json {
          Output.line(ServerMessage.event(event).line)
        } else {
          Output.line(WatchCommand.render(event, zone: zone))
        }
        Output.flush()
      default: continue
      }
    }
    return ExitStatus.ok
  }

  /// One authorization: a line of text, or its JSON object.
  static func show(_ a: AppStatusView, json: Bool) {
    if json {
      Output.line(a.json.serialized)
    } else {
      var words = "\(a.app) (uid \(a.uid), \(a.verified.word)): \(a.status.word), \(a.accuracy.word) accuracy"
      if a.provisional { words += ", provisional" }
      if a.once { words += ", once" }
      if a.temporaryFullAccuracy { words += " (temporary, while in use)" }
      if a.prompt.known != PromptState.none { words += ", prompt \(a.prompt.word)" }
      Output.line(words)
    }
    Output.flush()
  }
}
