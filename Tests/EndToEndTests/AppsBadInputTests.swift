import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// Apps misbehaving against the real locd: a user who invents app ids by the thousand, agents
/// that never answer or vanish mid-prompt, unknown levels and oversized purposes. Each gets a
/// clear error and a counter, and the daemon keeps serving everyone else.
@Suite(.enabled(if: getuid() == 0, "needs root to run clients as other uids"), .serialized)
struct AppsBadInputTests {
  /// `setpriv` arguments that run `program` as `uid` (its own group, no others).
  static func asUser(_ uid: Int, _ program: String) -> [String] {
    ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--pdeathsig", "KILL", program]
  }

  /// `program ARGS` as `uid`, to completion.
  func runAs(_ uid: Int, _ program: URL, _ arguments: [String], timeout: Double = 60) throws -> Completed {
    try run(
      URL(fileURLWithPath: "/usr/bin/setpriv"), Self.asUser(uid, program.path) + arguments, timeout: timeout)
  }

  /// `locctl agent --policy` with `rules` as `uid`, its output in `output`; waits until locd
  /// counts it.
  func agent(uid: Int, _ daemon: LocdProcess, rules: String, output: String) throws -> Child {
    let rulesPath = daemon.directory + "/agent-\(uid)-\(rules.hashValue & 0xFFFF).rules"
    try rules.write(toFile: rulesPath, atomically: true, encoding: .utf8)
    chmod(rulesPath, 0o644)
    let out = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    defer { close(out) }
    let child = try Child(
      "/usr/bin/setpriv",
      Self.asUser(uid, Binaries.locctl.path) + [
        "--socket", daemon.socketPath, "agent", "--policy", rulesPath,
      ],
      stdoutFD: out)
    _ = try daemon.waitForStatus { $0.apps?.agents.contains(UInt32(uid)) == true }
    return child
  }

  /// The apps counter `name` in `status`.
  func counter(_ s: StatusView, _ name: String) -> Int? {
    s.apps?.counters.first { $0.name == name }?.value
  }

  /// 10,000 app ids from one uid: MaxAppsPerUser (256) are taken, the rest refused with
  /// too-many-apps and counted; a new app of that user is refused at hello; another user's
  /// app is served as before.
  @Test func tenThousandAppIDsFromOneUserMeetTheBound() throws {
    let daemon = try LocdProcess()
    #expect(try daemon.locctl(["set-location", "59.9139", "10.7522"]).status == 0)
    let flood = try runAs(
      1001, URL(fileURLWithPath: "/usr/bin/python3"),
      [Binaries.packageRoot.path + "/Tests/Peers/app-flood.py", daemon.socketPath, "10000", "org.flood.App"],
      timeout: 120)
    #expect(flood.status == 0, "\(flood.stderr)")
    let summary = try JSON.parse(Array(flood.stdout.utf8))
    // The bound is MaxAppsPerUser= (256 by default, docs/APPS.md "Limits").
    #expect(summary["taken"]?.number == Double(256), "\(flood.stdout)")
    #expect(summary["refused"]?["too-many-apps"]?.number == Double(10_000 - 256), "\(flood.stdout)")
    let message = summary["message"]?.string ?? ""
    #expect(message.contains("MaxAppsPerUser") && message.contains("uid 1001"), "\(message)")
    // A new app of the same user is refused when it says hello, with the same words.
    let another = try runAs(
      1001, Binaries.whereAmI, ["--socket", daemon.socketPath, "--app", "org.example.New", "--timeout", "20"])
    #expect(another.status == 1)
    #expect(
      another.stderr.contains("too-many-apps") && another.stderr.contains("MaxAppsPerUser"),
      "\(another.stderr)")
    // Another user is served: its agent answers, its app gets the position.
    let out = daemon.directory + "/agent-1002.out"
    let helper = try agent(uid: 1002, daemon, rules: "* allow-while-using\n", output: out)
    defer {
      kill(helper.pid, SIGTERM)
      helper.wait()
    }
    let weather = try runAs(
      1002, Binaries.whereAmI,
      ["--socket", daemon.socketPath, "--app", "org.example.Weather", "--wait", "0", "--timeout", "20"])
    #expect(weather.status == 0, "\(weather.stderr)")
    #expect(weather.stdout.contains("location: 59.9139 10.7522 (manual)"), "\(weather.stdout)")
    let s = try daemon.status()
    #expect(counter(s, "tooManyApps") == 10_000 - 256 + 1)
    let mine = try AppListResult(json: JSON.parse(Array(try daemon.locctl(["apps", "--json"]).stdout.utf8)))
    #expect(mine.apps.filter { $0.uid == 1001 }.count == 256)
    #expect(mine.apps.contains { $0.uid == 1002 && $0.app == "org.example.Weather" })
  }

  /// An agent that never answers: the prompt is withdrawn at PromptTimeout= and counted, the
  /// app hears no-answer, and the app run again (a new connection) within PromptInterval=
  /// gets no new prompt.
  @Test func anAgentThatNeverAnswersIsTimedOut() throws {
    let daemon = try LocdProcess(config: "[Apps]\nPromptTimeout=1s\nPromptInterval=1h\n")
    let out = daemon.directory + "/agent.out"
    let silent = try agent(uid: 1001, daemon, rules: "* ignore\n", output: out)
    defer {
      kill(silent.pid, SIGTERM)
      silent.wait()
    }
    let app = ["--socket", daemon.socketPath, "--app", "org.example.Weather", "--timeout", "20"]
    let first = try runAs(1001, Binaries.whereAmI, app)
    #expect(first.status == 1)
    #expect(first.stderr.contains("nobody answered (no-answer)"), "\(first.stderr)")
    let said = try waitForFile(out) { $0.contains("withdrawn") }
    #expect(said.contains("prompt 1 (org.example.Weather): left unanswered"), "\(said)")
    #expect(said.contains("prompt 1 withdrawn"), "\(said)")
    #expect(counter(try daemon.status(), "promptsTimedOut") == 1)
    // Asked again at once: the answer is the same, no second prompt.
    let again = try runAs(1001, Binaries.whereAmI, app)
    #expect(again.status == 1)
    #expect(again.stderr.contains("nobody answered (no-answer)"), "\(again.stderr)")
    let s = try daemon.status()
    #expect(counter(s, "promptsTimedOut") == 1)
    #expect(s.apps?.pendingPrompts == 0)
    #expect(!(try String(contentsOfFile: out, encoding: .utf8)).contains("prompt 2"))
  }

  /// An agent killed while a prompt waits: the app hears no-agent and keeps waiting; the
  /// user's next agent gets the same question and its answer reaches the app.
  @Test func anAgentThatVanishesMidPromptHandsTheQuestionOn() throws {
    let daemon = try LocdProcess()
    #expect(try daemon.locctl(["set-location", "59.9139", "10.7522"]).status == 0)
    let firstOut = daemon.directory + "/agent1.out"
    let first = try agent(uid: 1001, daemon, rules: "* ignore\n", output: firstOut)
    let appOut = daemon.directory + "/app.out"
    let appFD = open(appOut, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    let app = try Child(
      "/usr/bin/setpriv",
      Self.asUser(1001, Binaries.locctl.path) + [
        "--socket", daemon.socketPath, "app", "org.example.Weather", "--request", "when-in-use", "--json",
        "--timeout", "30",
      ], stdoutFD: appFD)
    close(appFD)
    defer { app.wait(timeout: 1) }
    _ = try waitForFile(firstOut) { $0.contains("left unanswered") }
    kill(first.pid, SIGKILL)
    first.wait()
    let told = try waitForFile(appOut) { $0.contains("\"prompt\":\"no-agent\"") }
    #expect(told.contains("\"status\":\"not-determined\""))
    #expect(app.isRunning, "the app keeps waiting for an answer")
    let secondOut = daemon.directory + "/agent2.out"
    let second = try agent(
      uid: 1001, daemon, rules: "org.example.Weather allow-while-using\n", output: secondOut)
    defer {
      kill(second.pid, SIGTERM)
      second.wait()
    }
    #expect(app.wait(timeout: 20) == 0)
    let last = try #require(
      try String(contentsOfFile: appOut, encoding: .utf8).split(separator: "\n").last)
    let view = try AppStatusView(json: JSON.parse(Array(last.utf8)))
    #expect(view.status == .known(.whenInUse) && view.decidedBy == "agent")
    // The same prompt (number 1) went to the second agent.
    #expect(
      try waitForFile(secondOut) { $0.contains("prompt 1 (org.example.Weather): allow-while-using") } != "")
  }

  /// Unknown levels, a purpose over 512 bytes and a 1 MiB one over the socket: invalid-params
  /// or request-too-large, counted; the same app session is served afterwards.
  @Test func unknownLevelsAndHugePurposesAreRefused() throws {
    let daemon = try LocdProcess()
    let client = try RawClient(path: daemon.socketPath)
    guard case .greeting = try client.readMessage() else { throw HarnessError("no greeting") }
    try client.send(.hello(app: "org.example.Bad", client: "test"), id: .number(0))
    #expect(try client.reply(to: .number(0), .hello(app: "org.example.Bad")).app?.app == "org.example.Bad")
    /// Sends `params` of request-authorization as request `id`; the error it gets.
    func refusal(_ params: String, id: Int) throws -> ErrorReply {
      try client.send(#"{"id":\#(id),"method":"request-authorization","params":\#(params)}"# + "\n")
      let (errorID, reply) = try client.error()
      #expect(errorID == .number(Int64(id)))
      return reply
    }
    let sometimes = try refusal(#"{"level":"sometimes","purpose":"p"}"#, id: 1)
    #expect(sometimes.code == .known(.invalidParams))
    #expect(sometimes.message.contains("when-in-use or always") && sometimes.message.contains("sometimes"))
    #expect(try refusal(#"{"level":2,"purpose":"p"}"#, id: 2).code == .known(.invalidParams))
    #expect(try refusal(#"{"purpose":"p"}"#, id: 3).message.contains("\"level\" is required"))
    let long = String(repeating: "x", count: 513)
    let tooLong = try refusal(#"{"level":"always","purpose":"\#(long)"}"#, id: 4)
    #expect(tooLong.code == .known(.invalidParams) && tooLong.message.contains("1 to 512 bytes"))
    #expect(try refusal(#"{"level":"always","purpose":""}"#, id: 5).code == .known(.invalidParams))
    // 1 MiB of purpose is over the request line limit: refused before it is parsed.
    try client.send(
      #"{"id":6,"method":"request-authorization","params":{"level":"always","purpose":""#
        + String(repeating: "y", count: 1 << 20) + "\"}}\n")
    #expect(try client.error().reply.code == .known(.requestTooLarge))
    // 512 bytes exactly is a purpose; the session goes on (no agent: it says so).
    let fits = String(repeating: "z", count: 512)
    try client.send(.requestAuthorization(.whenInUse, purpose: fits), id: .number(7))
    let now = try client.reply(to: .number(7), .requestAuthorization(.whenInUse, purpose: fits))
    #expect(now.authorization.prompt == .known(.noAgent))
    let s = try daemon.status()
    #expect(s.server.counters.invalidRequests == 5)
    #expect(s.server.counters.tooLarge == 1)
    let listed = try AppListResult(
      json: JSON.parse(Array(try daemon.locctl(["apps", "--json"]).stdout.utf8)))
    #expect(listed.apps.first { $0.app == "org.example.Bad" }?.purpose == fits)
  }
}
