import Foundation
import LocCore
import LocProtocol
import Testing

/// locctl's command line as a new user meets it (issue 16): help everywhere before any side
/// effect, versions, suggestions, global options anywhere, one exit status per kind of
/// failure, units on the command line, and the completions made from the same table.
@Suite struct LocctlCommandLineTests {
  /// Every command the overview lists (the second column of its command lines).
  static let commands = [
    "status", "watch", "wait", "locate", "refresh", "set-location", "clear-location", "reload", "timers",
    "sun", "tz",
    "decode", "beacons", "help", "version", "completion",
  ]

  @Test func everyCommandHasHelpThatExitsZeroWithoutTalkingToLocd() throws {
    let overview = try run(Binaries.locctl, ["--help"])
    #expect(overview.status == 0)
    for name in Self.commands {
      #expect(overview.stdout.contains("\n  \(name) "), "the overview lists \(name)")
      // A socket that does not exist: a command that tried to connect would exit 3.
      for form in [
        [name, "--help"], [name, "-h"], ["help", name], ["--socket", "/nonexistent", name, "-h"],
      ] {
        let r = try run(Binaries.locctl, form)
        #expect(r.status == 0, "\(form): \(r.stderr)")
        #expect(r.stdout.hasPrefix("usage: locctl \(name)"), "\(form): \(r.stdout.prefix(80))")
        #expect(r.stderr.isEmpty, "\(form)")
      }
    }
    // Help wins over a mistake elsewhere on the line, and over a command's arguments.
    #expect(try run(Binaries.locctl, ["watch", "--bogus", "-h"]).status == 0)
    #expect(try run(Binaries.locctl, ["set-location", "91", "0", "--help"]).status == 0)
  }

  @Test func versionsOfBothPrograms() throws {
    for (binary, name) in [(Binaries.locctl, "locctl"), (Binaries.locd, "locd")] {
      let r = try run(binary, ["--version"])
      #expect(r.status == 0, "\(r.stderr)")
      let lines = r.stdout.split(separator: "\n").map(String.init)
      #expect(lines.first?.hasPrefix("\(name) ") == true)
      #expect(lines.contains("protocol: \(ProtocolVersion.current.major).\(ProtocolVersion.current.minor)"))
      #expect(lines.contains { $0.hasPrefix("time-zone boundaries: ") })
      #expect(lines.contains { $0.hasPrefix("tzdata: ") })
    }
    let json = try run(Binaries.locctl, ["version", "--json"])
    let o = try JSON.parse(json.stdout.trimmingCharacters(in: .newlines))
    #expect(o["protocol"]?["minor"]?.number == Double(ProtocolVersion.current.minor))
    #expect(o["version"]?.string != nil)
  }

  @Test func mistakesNameTheWordAndSuggestTheClosest() throws {
    let cases: [([String], String)] = [
      (["stauts"], "unknown command 'stauts'; did you mean 'status'?"),
      (["timer"], "did you mean 'timers'?"),
      (["status", "--jsno"], "locctl status: unknown option '--jsno'; did you mean '--json'?\n"),
      (["sun", "--dayz", "3"], "did you mean '--days'?"),
      (["help", "wacth"], "did you mean 'watch'?"),
    ]
    for (words, message) in cases {
      let r = try run(Binaries.locctl, words)
      #expect(r.status == 2, "\(words)")
      #expect(r.stderr.contains(message), "\(words): \(r.stderr)")
    }
    // The command is named once, by the prefix (the message used to name it again).
    let once = try run(Binaries.locctl, ["status", "--jsno"])
    #expect(once.stderr.components(separatedBy: "'locctl status'").count == 1, "\(once.stderr)")
    let d = try run(Binaries.locd, ["--chek-config"])
    #expect(d.status == 2)
    #expect(d.stderr.contains("did you mean '--check-config'?"), "\(d.stderr)")
  }

  @Test func globalOptionsBeforeOrAfterTheCommand() throws {
    let daemon = try LocdProcess()
    for words in [
      ["--socket", daemon.socketPath, "--json", "status"],
      ["status", "--socket", daemon.socketPath, "--json"],
      ["--json", "status", "--socket=\(daemon.socketPath)"],
    ] {
      let r = try run(Binaries.locctl, words)
      #expect(r.status == 0, "\(words): \(r.stderr)")
      _ = try decodeOutput(r.stdout, as: StatusView.self)
    }
  }

  @Test func exitStatusesAreTheSameWhoeverCatchesTheMistake() throws {
    // 3: nothing answers on the socket.
    #expect(try run(Binaries.locctl, ["--socket", "/nonexistent/locd.sock", "status"]).status == 3)
    let daemon = try LocdProcess()
    // 2: a bad value, caught by locctl...
    let local = try daemon.locctl(["set-location", "91", "10"])
    #expect(local.status == 2)
    #expect(local.stderr.contains("latitude"), "\(local.stderr)")
    // ... or by locd (a timer name locctl passes through unread): 2 as well.
    let remote = try daemon.locctl(["timers", "add", "bad/name", "sunset"])
    #expect(remote.status == 2, "\(remote.stderr)")
    // 1: a failure locd reports (no such timer).
    #expect(try daemon.locctl(["timers", "show", "nothing-here"]).status == 1)
    // 4 (permission denied, by the socket's mode or by locd) is checked in PermissionTests.
  }

  @Test func oneCoordinateSyntaxAndUnitsEverywhere() throws {
    for words in [["tz", "59.91,10.75"], ["tz", "59.91", "10.75"], ["tz", "59.91, 10.75"]] {
      let r = try run(Binaries.locctl, words)
      #expect(r.status == 0 && r.stdout.hasPrefix("Europe/Oslo"), "\(words): \(r.stdout) \(r.stderr)")
    }
    let far = try run(Binaries.locctl, ["tz", "59.91,190"])
    #expect(far.status == 2 && far.stderr.contains("longitude"), "\(far.stderr)")
    let bare = try run(Binaries.locctl, ["wait", "sunset-30"])
    #expect(bare.status == 2)
    #expect(bare.stderr.contains("sunset-30m"), "suggests minutes: \(bare.stderr)")
    let badSpan = try run(Binaries.locctl, ["locate", "--timeout", "30 parsecs"])
    #expect(badSpan.status == 2 && badSpan.stderr.contains("--timeout"), "\(badSpan.stderr)")
    let badDistance = try run(Binaries.locctl, ["locate", "--accuracy", "far"])
    #expect(badDistance.status == 2 && badDistance.stderr.contains("--accuracy"), "\(badDistance.stderr)")
  }

  @Test func setAndClearLocationSayWhatTheyDid() throws {
    let daemon = try LocdProcess()
    let none = try daemon.locctl(["clear-location"])
    #expect(none.status == 0 && none.stdout.contains("there was no manual location"), "\(none.stdout)")
    let set = try daemon.locctl(["set-location", "59.9139,10.7522", "--name", "Oslo"])
    #expect(set.status == 0, "\(set.stderr)")
    #expect(set.stdout.contains("59.9139") && set.stdout.contains("10.7522") && set.stdout.contains("Oslo"))
    let status = try daemon.status()
    #expect(status.manual?.coordinate.latitude.value == 59.9139)
    let cleared = try daemon.locctl(["clear-location"])
    #expect(
      cleared.status == 0 && !cleared.stdout.contains("there was no manual location"), "\(cleared.stdout)")
  }

  @Test func waitReturnsWhenTheZoneChanges() throws {
    let daemon = try LocdProcess()
    let out = daemon.directory + "/wait.json"
    let fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    let waiter = try Child(
      Binaries.locctl.path,
      ["--socket", daemon.socketPath, "wait", "timezone-changed", "--json", "--timeout", "30s"],
      stdoutFD: fd)
    close(fd)
    // The wait is registered once locd counts the session; then a manual location in Oslo
    // moves the zone from the system's to Europe/Oslo.
    _ = try daemon.waitForStatus { $0.server.sessions >= 1 }
    #expect(try daemon.locctl(["set-location", "59.9139", "10.7522"]).status == 0)
    #expect(waiter.wait(timeout: 20) == 0)
    let text = try String(contentsOfFile: out, encoding: .utf8)
    let result = try decodeOutput(text, as: WaitResult.self)
    #expect(result.change?.to.id == "Europe/Oslo")
    // A wait that does not happen in time is exit status 1.
    let late = try daemon.locctl(["wait", "timezone-changed", "--timeout", "200ms"])
    #expect(late.status == 1, "\(late.stderr)")
  }

  @Test(.enabled(if: getuid() == 0, "needs root: a Command= is only read from a root-owned timers.d"))
  func commandProblemsAreReportedWhenTimersLoad() throws {
    let dir = LocdProcess.makeDirectory()
    let timers = dir + "/timers.d"
    #expect(mkdir(timers, 0o755) == 0)
    let text = "[Timer]\nRule=sunset-30m\n\n[Action]\nCommand=/no/such/program --x\n"
    try text.write(toFile: timers + "/dim.timer", atomically: true, encoding: .utf8)
    #expect(chmod(timers + "/dim.timer", 0o644) == 0)
    // --check-config names the command's problem (and exits 1), after the timer count.
    let check = try run(Binaries.locd, ["--config", "/dev/null", "--timers-dir", timers, "--check-config"])
    #expect(check.status == 1, "\(check.stdout) \(check.stderr)")
    #expect(check.stdout.contains("\(timers): 1 timer(s), 1 problem(s)"), "\(check.stdout)")
    #expect(check.stderr.contains("/no/such/program does not exist"), "\(check.stderr)")
    // The daemon loads the timer anyway (its event still fires); `locctl timers` shows why
    // the command will not run.
    let daemon = try LocdProcess(arguments: ["--timers-dir", timers], directory: dir)
    let list = try daemon.locctl(["timers"])
    #expect(list.status == 0, "\(list.stderr)")
    #expect(list.stdout.contains("dim"))
    #expect((list.stdout + list.stderr).contains("/no/such/program does not exist"), "\(list.stdout)")
  }

  @Test(
    .enabled(
      if: access("/etc/locd/locd.conf", F_OK) != 0, "the default configuration file exists on this machine"))
  func checkConfigSaysWhenTheDefaultFileIsMissing() throws {
    let check = try run(Binaries.locd, ["--check-config"])
    #expect(check.status == 0, "\(check.stderr)")
    #expect(
      check.stdout.hasPrefix("/etc/locd/locd.conf: does not exist; the defaults apply"), "\(check.stdout)")
    // A file named with --config must exist.
    let named = try run(Binaries.locd, ["--config", "/nonexistent/locd.conf", "--check-config"])
    #expect(named.status == 1 && named.stderr.contains("/nonexistent/locd.conf: "), "\(named.stderr)")
  }

  @Test func completionsComeFromTheCommandTable() throws {
    for shell in ["bash", "zsh", "fish"] {
      let r = try run(Binaries.locctl, ["completion", shell])
      #expect(r.status == 0, "\(shell): \(r.stderr)")
      for name in Self.commands { #expect(r.stdout.contains(name), "\(shell) completes \(name)") }
      #expect(r.stdout.contains("--socket") || r.stdout.contains("socket"), "\(shell)")
    }
    // The scripts parse in their shells (scripts/deps.sh test installs zsh and fish).
    for (shell, path) in [("bash", "/bin/bash"), ("zsh", "/usr/bin/zsh"), ("fish", "/usr/bin/fish")] {
      let script = try run(Binaries.locctl, ["completion", shell])
      let check = try run(URL(fileURLWithPath: path), ["-n"], stdin: script.stdout)
      #expect(check.status == 0, "\(shell): \(check.stderr)")
    }
  }

  /// What bash and fish offer, asked as they ask when Tab is pressed: timer names after
  /// `timers show` (it offered `show add remove` again), nothing after `timers add`, app ids
  /// after `apps grant` and `regions`, zone names after `--tz`, the options and `-` after a
  /// lone `-`. Timer names and app ids come from the running locd named by --socket.
  @Test func completionsOfferLiveWordsFromLocdAndTzdata() throws {
    let daemon = try LocdProcess(arguments: ["--timers-dir", LocdProcess.makeDirectory()])
    #expect(try daemon.locctl(["timers", "add", "porch", "sunset-10m"]).status == 0)
    #expect(try daemon.locctl(["apps", "grant", "org.example.Fences"]).status == 0)
    let locctl = Binaries.locctl.path
    let s = daemon.socketPath
    let cases: [([String], [String])] = [
      ([locctl, "--socket", s, "timers", "show", ""], ["porch"]),
      ([locctl, "--socket", s, "timers", "remove", "p"], ["porch"]),
      ([locctl, "--socket", s, "timers", "add", ""], []),
      ([locctl, "--socket", s, "timers", ""], ["show", "add", "remove"]),
      ([locctl, "--socket", s, "apps", "grant", ""], ["org.example.Fences"]),
      ([locctl, "--socket", s, "regions", ""], ["org.example.Fences"]),
      ([locctl, "sun", "--tz", "Europe/Os"], ["Europe/Oslo"]),
      ([locctl, "decode", "-"], ["--socket", "--json", "--no-color", "--utc", "--help", "-h", "-"]),
    ]
    var script = try run(Binaries.locctl, ["completion", "bash"]).stdout
    script += "\ncomp() { COMP_WORDS=(\"$@\"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _locctl; "
    script += "printf '%s\\n' \"${COMPREPLY[*]}\"; }\n"
    for (words, _) in cases { script += "comp " + words.map { "'\($0)'" }.joined(separator: " ") + "\n" }
    let bash = try run(URL(fileURLWithPath: "/bin/bash"), ["-s"], stdin: script)
    #expect(bash.status == 0, "\(bash.stderr)")
    let answers = bash.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    for (i, (words, wanted)) in cases.enumerated() {
      #expect(
        i < answers.count && answers[i] == wanted.joined(separator: " "),
        "bash \(words.dropFirst()): \(answers)")
    }
    // fish asks the same through `complete -C` (it prints each candidate, a tab and its help).
    let fishScript = try run(Binaries.locctl, ["completion", "fish"]).stdout
    let dir = LocdProcess.makeDirectory()
    try fishScript.write(toFile: dir + "/locctl.fish", atomically: true, encoding: .utf8)
    for (line, wanted) in [
      ("\(locctl) --socket \(s) timers show ", ["porch"]),
      ("\(locctl) --socket \(s) timers ", ["add", "remove", "show"]),
      ("\(locctl) --socket \(s) apps grant ", ["org.example.Fences"]),
      ("\(locctl) sun --tz Europe/Osl", ["Europe/Oslo"]),
    ] {
      let fish = try run(
        URL(fileURLWithPath: "/usr/bin/fish"),
        ["--no-config", "-c", "source \(dir)/locctl.fish; complete -C '\(line)'"])
      #expect(fish.status == 0, "\(fish.stderr)")
      let got = fish.stdout.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
      #expect(got == wanted, "fish '\(line)': \(fish.stdout)")
    }
    // Without a daemon the live words are none, quickly and quietly.
    let none = try run(Binaries.locctl, ["--socket", "/nonexistent/s", "__complete", "timer-names"])
    #expect(none.status == 0 && none.stdout.isEmpty && none.stderr.isEmpty, "\(none.stderr)")
  }
}

/// locd's log lines: to a terminal with the local time and the level in words, elsewhere
/// with the `<N>` prefixes journald and syslog read.
@Suite struct ForegroundLogTests {
  /// What arrives on `fd` within `timeout` seconds, until `done` says it is enough.
  func read(_ fd: Int32, timeout: Double, until done: (String) -> Bool) -> String {
    var text = ""
    let deadline = Date().addingTimeInterval(timeout)
    var buffer = [UInt8](repeating: 0, count: 4096)
    while Date() < deadline, !done(text) {
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, 100) > 0 else { continue }
      let n = Glibc.read(fd, &buffer, buffer.count)
      guard n > 0 else { break }
      text += String(decoding: buffer[0..<n], as: UTF8.self)
    }
    return text
  }

  @Test func aTerminalGetsTimestampsAndLevelWords() throws {
    let terminal = try FakeSerialDevice()
    let slave = open(terminal.path, O_RDWR | O_NOCTTY | O_CLOEXEC)
    try #require(slave >= 0)
    let dir = LocdProcess.makeDirectory()
    let locd = try Child(
      Binaries.locd.path,
      [
        "--config", "/dev/null", "--socket", dir + "/s", "--state-dir", dir + "/state", "--source",
        "gpsd://127.0.0.1:1",
      ],
      stderrFD: slave)
    close(slave)
    defer {
      kill(locd.pid, SIGTERM)
      locd.wait(timeout: 10)
    }
    // `2026-06-21 21:22:03.123 notice: ...`: the wall clock to the millisecond, then the level.
    let pattern = #/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} (err|warning|notice|info): /#
    let text = read(terminal.master, timeout: 10) { $0.contains(pattern) }
    #expect(text.contains(pattern), "\(text)")
    #expect(!text.contains("<6>") && !text.contains("<5>"), "\(text)")
  }

  @Test func aFileGetsPriorityPrefixes() throws {
    // LocdProcess sends stderr to a regular file.
    let daemon = try LocdProcess()
    #expect(daemon.log.hasPrefix("<"), "\(daemon.log.prefix(200))")
    #expect(!daemon.log.contains(#/^\d{4}-\d\d-\d\d /#))
  }
}
