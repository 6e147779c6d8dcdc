/// A timer as configured: a name, a rule, an action and a missed-event policy, from a file in
/// /etc/locd/timers.d/ or added over the socket at run time.
public struct TimerDefinition: Sendable, Hashable {
  /// Unique among all timers: `[A-Za-z0-9_.@-]`, 1 to 64 characters.
  public var name: String
  /// When it fires.
  public var rule: TimerRule
  /// What it does.
  public var action: TimerAction
  /// What it does about occurrences it missed.
  public var missed: MissedEventPolicy
  /// Where it was defined.
  public var origin: Origin

  /// Where a timer was defined.
  public enum Origin: Sendable, Hashable {
    /// A `NAME.timer` file (its path).
    case file(String)
    /// Added over the socket, kept in the state directory.
    case runtime
  }

  /// A timer.
  public init(
    name: String, rule: TimerRule, action: TimerAction = .event, missed: MissedEventPolicy = .skip,
    origin: Origin = .runtime
  ) {
    self.name = name
    self.rule = rule
    self.action = action
    self.missed = missed
    self.origin = origin
  }

  /// Whether `name` can name a timer (also a file name: no "/", not "." or "..").
  public static func isValidName(_ name: some StringProtocol) -> Bool {
    guard (1...64).contains(name.utf8.count), name != ".", name != ".." else { return false }
    return name.utf8.allSatisfy { c in
      (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39)
        || c == UInt8(ascii: "_") || c == UInt8(ascii: ".") || c == UInt8(ascii: "@")
        || c == UInt8(ascii: "-")
    }
  }

  /// Reads a timer file (`[Timer] Rule= Missed=`, `[Action] Unit= | Command= User=`; see
  /// docs/TIMERS.md). `commandsAllowed` is false unless the file is owned by root and writable
  /// by nobody else. Every problem is reported with its line.
  public static func parse(fileText: String, name: String, path: String, commandsAllowed: Bool)
    -> Result<TimerDefinition, ReloadFailure>
  {
    let (file, syntax) = ConfigFile.parse(fileText)
    var problems = syntax.map { "\(path):\($0.line): \($0.message)" }
    func problem(_ line: Int, _ message: String) { problems.append("\(path):\(line): \(message)") }
    if !isValidName(name) {
      problems.append("\(path): '\(name)' is not a timer name (letters, digits, _ . @ -, at most 64)")
    }
    var rule: TimerRule? = nil
    var missed = MissedEventPolicy.skip
    var unit: String? = nil
    var command: [String]? = nil
    var user: String? = nil
    var actionLine = 0
    var sawRule = false
    for entry in file.entries {
      let v = entry.value
      switch (entry.section, entry.key) {
      case ("Timer", "Rule"):
        sawRule = true
        do { rule = try TimerRule(parsing: v) } catch { problem(entry.line, error.description) }
      case ("Timer", "Missed"):
        if let p = MissedEventPolicy(rawValue: v) {
          missed = p
        } else {
          problem(entry.line, "Missed= must be skip, once or all")
        }
      case ("Action", "Unit"):
        actionLine = entry.line
        if TimerAction.isValidUnitName(v) {
          unit = v
        } else {
          problem(entry.line, "'\(v)' is not a unit name such as night-mode.service")
        }
      case ("Action", "Command"):
        actionLine = entry.line
        guard let words = TimerAction.splitCommand(v), let program = words.first else {
          problem(entry.line, "Command= needs a program and its arguments (quotes must close)")
          continue
        }
        guard program.hasPrefix("/") else {
          problem(entry.line, "Command= must start with an absolute path (no shell, no $PATH search)")
          continue
        }
        command = words
      case ("Action", "User"):
        if !v.isEmpty, v.utf8.count <= 32, !v.contains("/"), !v.contains(":") {
          user = v
        } else {
          problem(entry.line, "User= must be a user name")
        }
      default:
        if ["Timer", "Action"].contains(entry.section) {
          problem(entry.line, "unknown key '\(entry.key)' in [\(entry.section)]")
        } else {
          problem(entry.line, "unknown section [\(entry.section)]")
        }
      }
    }
    if !sawRule {
      problems.append("\(path): [Timer] Rule= is missing")
    }
    if unit != nil, command != nil { problem(actionLine, "give either Unit= or Command=, not both") }
    if command != nil, !commandsAllowed {
      problem(actionLine, "Command= is only allowed in files owned by root and not writable by others")
    }
    if user != nil, command == nil { problem(actionLine, "User= only applies to Command=") }
    guard problems.isEmpty, let rule else { return .failure(ReloadFailure(problems: problems)) }
    let action: TimerAction
    if let unit {
      action = .startUnit(unit)
    } else if let command {
      action = .command(argv: command, user: user)
    } else {
      action = .event
    }
    return .success(
      TimerDefinition(name: name, rule: rule, action: action, missed: missed, origin: .file(path)))
  }
}
