import LocCore
import LocHost
import LocProtocol

/// `locctl agent [--policy FILE]`: answers the location prompts of the calling user's apps,
/// the stand-in for the system prompt (docs/APPS.md). Interactive: each prompt is shown in
/// the terminal and answered from it; with `--policy`: answered from rules, unattended.
enum AgentCommand {
  static let spec = CommandSpec(
    name: "agent", summary: "answer your apps' location prompts (in the terminal, or --policy FILE)",
    usage: ["agent [--policy FILE]"],
    options: [.valued("policy", "FILE", "answer unattended from the rules in FILE", completion: .file)],
    help: """
      Registers as the calling user's agent (one per user) and answers the location prompts of that
      user's apps until interrupted. Each prompt shows the app id (verified by its Flatpak scope or
      systemd unit, or only claimed) and its purpose, and takes Allow Once, Allow While Using the App
      or Don't Allow, with Precise on or off (add r to the number for off); an upgrade prompt takes
      Change to Always Allow or Keep Only While Using; a temporary full accuracy prompt (an app
      granted reduced accuracy asks for precise positions while it is in use) takes Allow Once or
      Don't Allow. With --policy it answers from rules, one per
      line: APP ANSWER [reduced] [upgrade=always|upgrade=keep-while-using], where APP is an id, a
      prefix ending in *, or *, and ANSWER is allow-once, allow-while-using, deny or ignore (leave it
      to time out); the first matching line answers, an app no line matches is ignored, and a
      temporary full accuracy prompt is allowed once by a line that allows the app without reduced,
      denied otherwise (APPS.md).
      """,
    examples: ["locctl agent", "locctl agent --policy ~/.config/locd/agent.rules"],
    needsDaemon: true, run: run)

  static func run(_ invocation: Invocation) throws(UsageError) -> Int32 {
    try invocation.noPositionals()
    var rules: AgentRules? = nil
    if let path = invocation.value("policy") {
      do {
        let bytes = try FileIO.read(path: path, limit: 1 << 20)
        rules = try AgentRules(parsing: String(decoding: bytes, as: UTF8.self))
      } catch {
        throw UsageError("--policy \(path): \(error)")
      }
    }
    return withDaemon(invocation) { client throws(ControlClient.Failure) in
      let registered = try client.call(.registerAgent)
      Output.line("agent of uid \(registered.uid): \(registered.pending) prompt(s) waiting")
      Output.flush()
      while true {
        let event = try client.nextEvent()
        guard case .agentPrompt(let prompt) = event.data else { continue }
        switch prompt {
        case .withdrawn(let id, let reason):
          Output.line("prompt \(id) withdrawn: \(reason)")
        case .ask(let p):
          let decision = rules.map { decide(p, $0) } ?? ask(p)
          guard let (answer, precise) = decision else {
            Output.line("prompt \(p.prompt) (\(p.app)): left unanswered")
            Output.flush()
            continue
          }
          do throws(ControlClient.Failure) {
            _ = try client.call(.answerPrompt(p.prompt, answer, precise: precise))
            let what = p.kind.known == .temporaryFullAccuracy ? ", temporary full accuracy" : ""
            Output.line(
              "prompt \(p.prompt) (\(p.app)\(what)): \(answer.rawValue)\(precise ? "" : ", precise off")")
          } catch {
            // Withdrawn meanwhile (timed out, the app went away): say so and go on.
            guard case .daemon(let reply) = error else { throw error }
            Output.line("prompt \(p.prompt) (\(p.app)): not taken: \(reply.message)")
          }
        }
        Output.flush()
      }
    }
  }

  /// The rules' answer.
  static func decide(_ p: AgentPromptView, _ rules: AgentRules) -> (AgentAnswer, precise: Bool)? {
    guard let (answer, precise) = rules.answer(p.kind.word, app: p.app) else { return nil }
    return (answer, precise && p.maxAccuracy.known != .reduced)
  }

  /// Asks in the terminal.
  static func ask(_ p: AgentPromptView) -> (AgentAnswer, precise: Bool)? {
    let who = "\(p.app) (\(p.verified.word == "claimed" ? "not verified" : "verified by \(p.verified.word)"))"
    let temporary = p.kind.known == .temporaryFullAccuracy
    let wants = temporary ? "your precise location while you use it" : "your location"
    Output.line("\n\(Style.bold(Style.visible(who))) would like to use \(wants)")
    if let purpose = p.purpose { Output.line("  \"\(Style.visible(purpose))\"") }
    let upgrade = p.kind.known == .upgrade
    let choices: [(String, AgentAnswer)]
    if upgrade {
      choices = [("Change to Always Allow", .always), ("Keep Only While Using", .keepWhileUsing)]
    } else if temporary {
      choices = [("Allow Once", .allowOnce), ("Don't Allow", .deny)]
    } else {
      choices = [
        ("Allow Once", .allowOnce), ("Allow While Using the App", .allowWhileUsing), ("Don't Allow", .deny),
      ]
    }
    for (i, c) in choices.enumerated() { Output.line("  \(i + 1)) \(c.0)") }
    let canBePrecise = !upgrade && !temporary && p.maxAccuracy.known != .reduced
    if canBePrecise { Output.line("  add 'r' for Precise off (e.g. 2r)") }
    while true {
      Output.write("> ")
      Output.flush()
      guard let line = readLine()?.trimmingSpaces() else { return nil }
      let reduced = line.hasSuffix("r")
      if let n = Int(reduced ? String(line.dropLast()) : line), (1...choices.count).contains(n) {
        return (choices[n - 1].1, canBePrecise && !reduced)
      }
      Output.line("answer 1 to \(choices.count)")
    }
  }
}

extension String {
  /// Without leading and trailing spaces and tabs.
  func trimmingSpaces() -> String {
    var s = Substring(self)
    while s.first == " " || s.first == "\t" { s = s.dropFirst() }
    while s.last == " " || s.last == "\t" { s = s.dropLast() }
    return String(s)
  }
}
