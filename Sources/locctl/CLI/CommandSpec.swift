/// One locctl command as the command table describes it: its name, one line for the
/// overview, its synopses, options, arguments and help, and the function that runs it. The
/// help, the argument parser and the shell completions are all made from these entries
/// (`CommandTable`), so a command is added by writing one.
struct CommandSpec: Sendable {
  /// The word after `locctl`, e.g. "status".
  var name: String
  /// One line for `locctl --help`.
  var summary: String
  /// Synopses without the leading `locctl `, e.g. "timers show NAME".
  var usage: [String]
  /// The command's own options (the global ones are in `GlobalOptions.all`).
  var options: [OptionSpec] = []
  /// What each positional argument completes to, by position; the last one applies to the
  /// rest. Empty: the command takes no positional argument.
  var arguments: [Completion] = []
  /// The paragraphs `locctl help NAME` prints after the synopses.
  var help: String
  /// Example command lines for the help.
  var examples: [String] = []
  /// Whether it talks to locd (the others work offline).
  var needsDaemon: Bool
  /// Whether the overview and the completions leave it out (still runs, still has help).
  var hidden = false
  /// Runs the command; returns the exit status (`ExitStatus`). It checks its arguments
  /// before doing anything, throwing `UsageError` for a wrong one.
  var run: @Sendable (Invocation) throws(UsageError) -> Int32

  /// The option named `name` (without dashes), own or global.
  func option(named name: String) -> OptionSpec? {
    options.first { $0.name == name } ?? GlobalOptions.all.first { $0.name == name }
  }

  /// The option with the one-letter form `letter`, own or global.
  func option(short letter: Character) -> OptionSpec? {
    options.first { $0.short == letter } ?? GlobalOptions.all.first { $0.short == letter }
  }
}

/// An option: `--name`, `--name VALUE` or `--name=VALUE`, perhaps also `-x`.
struct OptionSpec: Sendable, Hashable {
  /// The long name without dashes.
  var name: String
  /// The one-letter form, if any.
  var short: Character? = nil
  /// The placeholder of its value (`DURATION`); nil for a flag.
  var value: String? = nil
  /// One line of help.
  var help: String
  /// What its value completes to.
  var completion: Completion = .none
  /// Whether it may be given more than once (every value counts).
  var repeatable = false
  /// Whether its value is a coordinate, which may take two words (`--at 59.91 10.75`).
  var coordinate = false

  /// A flag.
  static func flag(_ name: String, short: Character? = nil, _ help: String) -> OptionSpec {
    OptionSpec(name: name, short: short, help: help)
  }

  /// An option with a value.
  static func valued(
    _ name: String, _ placeholder: String, _ help: String, completion: Completion = .none,
    repeatable: Bool = false
  ) -> OptionSpec {
    OptionSpec(name: name, value: placeholder, help: help, completion: completion, repeatable: repeatable)
  }

  /// An option whose value is a coordinate (`CoordinateText`): one word, or two when the
  /// first holds only a latitude.
  static func coordinate(_ name: String, _ help: String) -> OptionSpec {
    OptionSpec(name: name, value: "LAT,LON", help: help, coordinate: true)
  }

  /// `--name VALUE` or `-x, --name`, as the help shows it.
  var synopsis: String {
    var text = short.map { "-\($0), " } ?? ""
    text += "--" + name
    if let value { text += " " + value }
    return text
  }
}

/// What a word completes to in the shell completions.
enum Completion: Sendable, Hashable {
  /// Nothing to offer.
  case none
  /// File names.
  case file
  /// These words.
  case words([String])
  /// These words, or file names (`-` for standard input and a file, say).
  case wordsOrFile([String])
  /// The names of locctl's commands (`locctl help`).
  case commandNames
  /// Words only the running system knows, asked of `locctl __complete` when the shell
  /// completes (timer names and app ids from locd, zone names from tzdata).
  case live(LiveWords)

  /// The fixed words offered, if any.
  var words: [String] {
    switch self {
    case .words(let w), .wordsOrFile(let w): return w
    case .none, .file, .commandNames, .live: return []
    }
  }

  /// Whether file names are offered.
  var files: Bool {
    switch self {
    case .file, .wordsOrFile: return true
    case .none, .words, .commandNames, .live: return false
    }
  }

  /// The kind of live words, if these are.
  var live: LiveWords? {
    if case .live(let kind) = self { return kind }
    return nil
  }
}

/// What `locctl __complete KIND [WORDS...]` prints, one per line (`WORDS`: the command's
/// positional words before the one being completed).
enum LiveWords: String, Sendable, Hashable, CaseIterable {
  /// The timers locd has (`timers show|remove NAME`); nothing after `timers add`.
  case timerNames = "timer-names"
  /// The app ids of the caller's apps, or everyone's for an administrator (`apps grant APP`,
  /// `regions APP`, `app APP`).
  case appIDs = "app-ids"
  /// The zone names of this machine's tzdata (`--tz ZONE`).
  case zoneNames = "zone-names"
}

/// The options every command takes, before or after the command's name.
enum GlobalOptions {
  /// `--socket PATH`.
  static let socket = OptionSpec.valued(
    "socket", "PATH", "locd's control socket (default $LOCD_SOCKET, else /run/locd/locd.sock)",
    completion: .file)
  /// `--json`.
  static let json = OptionSpec.flag("json", "print JSON (one object per line) instead of text")
  /// `--no-color`.
  static let noColor = OptionSpec.flag("no-color", "never use colour (as NO_COLOR does)")
  /// `--utc`.
  static let utc = OptionSpec.flag("utc", "show times in UTC instead of the zone in effect")
  /// `-h`, `--help`.
  static let help = OptionSpec.flag("help", short: "h", "print this help and exit")

  /// All of them, in the order the help lists them.
  static let all = [socket, json, noColor, utc, help]
}
