import LocCore
import LocProtocol
import LocSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `locctl agent [--policy FILE]`: answers the location prompts of the calling user's apps,
/// the stand-in for the system prompt (docs/APPS.md). Interactive: each prompt is shown in
/// the terminal and answered from it; with `--policy`: answered from rules, unattended.
enum AgentCommand: LocctlCommand {
  static let name = "agent"
  static let summary = "answer your apps' location prompts (in the terminal, or --policy FILE)"

  static func run(_ arguments: [String], socket: String) -> Int32 {
    guard let options = parseOptions(arguments, valued: ["policy"], command: name) else {
      return ExitStatus.usage
    }
    guard options.positionals.isEmpty else {
      printError("usage: locctl agent [--policy FILE]")
      return ExitStatus.usage
    }
    var rules: AgentRules? = nil
    if let path = options.value("policy") {
      do {
        let bytes = try FileIO.read(path: path, limit: 1 << 20)
        rules = try AgentRules(parsing: String(decoding: bytes, as: UTF8.self))
      } catch {
        printError("locctl agent: \(path): \(error)")
        return ExitStatus.usage
      }
    }
    return withDaemon(socket) { client throws(ControlClient.Failure) in
      let registered = try client.call(.registerAgent)
      print("agent of uid \(registered.uid): \(registered.pending) prompt(s) waiting")
      flushOutput()
      while true {
        let event = try client.nextEvent()
        guard case .agentPrompt(let prompt) = event.data else { continue }
        switch prompt {
        case .withdrawn(let id, let reason):
          print("prompt \(id) withdrawn: \(reason)")
        case .ask(let p):
          let decision = rules.map { decide(p, $0) } ?? ask(p)
          guard let (answer, precise) = decision else {
            print("prompt \(p.prompt) (\(p.app)): left unanswered")
            flushOutput()
            continue
          }
          do throws(ControlClient.Failure) {
            _ = try client.call(.answerPrompt(p.prompt, answer, precise: precise))
            print("prompt \(p.prompt) (\(p.app)): \(answer.rawValue)\(precise ? "" : ", precise off")")
          } catch {
            // Withdrawn meanwhile (timed out, the app went away): say so and go on.
            guard case .daemon(let reply) = error else { throw error }
            print("prompt \(p.prompt) (\(p.app)): not taken: \(reply.message)")
          }
        }
        flushOutput()
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
    print("\n\(Style.bold(who)) would like to use your location")
    if let purpose = p.purpose { print("  \"\(purpose)\"") }
    let upgrade = p.kind.known == .upgrade
    let choices: [(String, AgentAnswer)] =
      upgrade
      ? [("Change to Always Allow", .always), ("Keep Only While Using", .keepWhileUsing)]
      : [("Allow Once", .allowOnce), ("Allow While Using the App", .allowWhileUsing), ("Don't Allow", .deny)]
    for (i, c) in choices.enumerated() { print("  \(i + 1)) \(c.0)") }
    let canBePrecise = !upgrade && p.maxAccuracy.known != .reduced
    if canBePrecise { print("  add 'r' for Precise off (e.g. 2r)") }
    while true {
      print("> ", terminator: "")
      flushOutput()
      guard let line = readLine()?.trimmingSpaces() else { return nil }
      let reduced = line.hasSuffix("r")
      if let n = Int(reduced ? String(line.dropLast()) : line), (1...choices.count).contains(n) {
        return (choices[n - 1].1, canBePrecise && !reduced)
      }
      print("answer 1 to \(choices.count)")
    }
  }

  static func flushOutput() { StandardStreams.flushOutput() }
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
