import LocCore
import LocHost

/// Reads locctl's command line against the command table. Global options may come before
/// or after the command; the command's own options come after it. `-h`/`--help` anywhere
/// (before `--`) asks for help and wins over every other problem, so it never runs anything.
/// A word starting with `-` and a digit or a point is a number (`-33.92`), not an option; a
/// lone `-` is a positional (standard input); `--` ends the options. A coordinate option's
/// value takes the next word too when it holds only a latitude (`--at 59.91 10.75`).
struct ArgumentParser {
  /// What the command line asks for.
  enum Outcome {
    /// Run this.
    case run(Invocation)
    /// Print the help of a command, or the overview (nil).
    case help(CommandSpec?)
    /// Print the versions.
    case version
    /// Wrong usage: the message (naming the word, with a suggestion), for the command if known.
    case usage(String, CommandSpec?)
  }

  /// The commands.
  let table: [CommandSpec]
  /// What runs when no command is named.
  let defaultCommand: String

  /// Parses `words` (the arguments after the program name).
  func parse(_ words: [String]) -> Outcome {
    var state = State()
    var i = 0
    while i < words.count {
      let word = words[i]
      i += 1
      if state.onlyPositionals || !isOption(word) {
        guard state.command == nil else {
          state.invocation.positionals.append(word)
          continue
        }
        guard let command = table.first(where: { $0.name == word }) else {
          let names = table.filter { !$0.hidden }.map(\.name)
          state.fail("unknown command '\(word)'" + Suggestion.hint(for: word, among: names))
          break
        }
        state.command = command
        state.invocation.command = command
        continue
      }
      if word == "--" {
        state.onlyPositionals = true
        continue
      }
      if word.hasPrefix("--") {
        i = long(word, words, i, &state)
      } else {
        i = short(word, words, i, &state)
      }
    }
    if state.help { return .help(state.command) }
    if let problem = state.problem { return .usage(problem, state.command) }
    if state.version { return .version }
    if state.command == nil, let fallback = table.first(where: { $0.name == defaultCommand }) {
      state.invocation.command = fallback
    }
    return .run(state.invocation)
  }

  /// Parser state: the command once named, what was read, the first problem.
  struct State {
    var command: CommandSpec? = nil
    var invocation = Invocation(command: CommandSpec.placeholder)
    var onlyPositionals = false
    var help = false
    var version = false
    var problem: String? = nil

    /// Remembers the first problem (help still wins).
    mutating func fail(_ text: String) { if problem == nil { problem = text } }
  }

  /// Whether `word` is an option rather than a positional or a negative number.
  func isOption(_ word: String) -> Bool {
    guard word.hasPrefix("-"), word.count > 1 else { return false }
    let second = word.dropFirst().first!
    return !(second.isNumber || second == ".")
  }

  /// The options known where the parser is: the command's and the global ones, or before
  /// the command only the global ones.
  func known(_ state: State) -> [OptionSpec] {
    (state.command?.options ?? []) + GlobalOptions.all
  }

  /// `--name`, `--name=VALUE` or `--name VALUE`; returns the index of the next word.
  func long(_ word: String, _ words: [String], _ next: Int, _ state: inout State) -> Int {
    var name = String(word.dropFirst(2))
    var inline: String? = nil
    if let eq = name.firstIndex(of: "=") {
      inline = String(name[name.index(after: eq)...])
      name = String(name[..<eq])
    }
    // `--version` is locctl's own, except for a command with an option of that name (tz).
    if name == "version", inline == nil, state.command?.options.contains(where: { $0.name == name }) != true {
      state.version = true
      return next
    }
    guard let option = known(state).first(where: { $0.name == name }) else {
      state.fail(unknownOption("--" + name, state))
      return next
    }
    return take(option, spelled: "--" + name, inline: inline, words, next, &state)
  }

  /// `-h`, or a cluster of one-letter flags (`-hv`), the last of which may take a value.
  func short(_ word: String, _ words: [String], _ next: Int, _ state: inout State) -> Int {
    var letters = Substring(word.dropFirst())
    var index = next
    while let letter = letters.first {
      letters = letters.dropFirst()
      guard let option = known(state).first(where: { $0.short == letter }) else {
        state.fail(unknownOption("-\(letter)", state))
        return index
      }
      if option.value != nil {
        return take(
          option, spelled: "-\(letter)", inline: letters.isEmpty ? nil : String(letters), words, index, &state
        )
      }
      index = take(option, spelled: "-\(letter)", inline: nil, words, index, &state)
    }
    return index
  }

  /// Records `option` (its value inline, or the next word whatever it looks like; a
  /// coordinate's, with the word after it when the value holds only a latitude).
  func take(
    _ option: OptionSpec, spelled: String, inline: String?, _ words: [String], _ next: Int,
    _ state: inout State
  ) -> Int {
    guard let placeholder = option.value else {
      if inline != nil {
        state.fail("option \(spelled) takes no value")
        return next
      }
      state.invocation.flags.insert(option.name)
      if option.name == "help" { state.help = true }
      return next
    }
    var value: String
    var after = next
    if let inline {
      value = inline
    } else {
      guard next < words.count else {
        state.fail("option \(spelled) needs a value (\(placeholder))")
        return next
      }
      value = words[next]
      after += 1
    }
    if option.coordinate, after < words.count, !isOption(words[after]), CoordinateText.wantsAnotherWord(value)
    {
      value += " " + words[after]
      after += 1
    }
    state.invocation.values[option.name, default: []].append(value)
    return after
  }

  /// "unknown option '--jsno'; did you mean '--json'?" (the error's prefix, `locctl status:`,
  /// already names the command).
  func unknownOption(_ spelled: String, _ state: State) -> String {
    let known = known(state)
    var text = "unknown option '\(spelled)'"
    let bare = String(spelled.drop(while: { $0 == "-" }))
    if let match = Suggestion.closest(to: bare, among: known.map(\.name)) {
      text += "; did you mean '--\(match)'?"
    } else if state.command == nil,
      let owner = table.first(where: { $0.options.contains { $0.name == bare } })
    {
      text += "; it is an option of 'locctl \(owner.name)': write it after the command"
    }
    return text
  }
}

extension CommandSpec {
  /// Stands in until the parser has read the command's name.
  static let placeholder = CommandSpec(
    name: "", summary: "", usage: [], help: "", needsDaemon: false, hidden: true, run: { _ in 0 })
}
