import LocCore

/// A small command-line parser (locd's): `--name value`, `--name=value`, `--flag`, one-letter
/// aliases (`-h`), and positionals. An unknown option names the word and suggests the
/// closest known one.
public struct CommandLineOptions {
  /// Positional words, in order.
  public var positionals: [String] = []
  private var values: [String: [String]] = [:]
  private var flags: Set<String> = []

  /// Error text for a usage problem.
  public struct UsageError: Error, CustomStringConvertible {
    public var description: String
  }

  /// Parses `arguments`; `valued` names options that take a value, `flagNames` those that do
  /// not, `short` maps one-letter aliases (`h` to `help`). A lone `-` is a positional (stdin).
  /// `--` ends option parsing.
  public init(
    _ arguments: [String], valued: Set<String>, flagNames: Set<String>, short: [Character: String] = [:]
  ) throws {
    var i = 0
    var onlyPositionals = false
    while i < arguments.count {
      var word = arguments[i]
      i += 1
      if !onlyPositionals, word.count == 2, word.hasPrefix("-"), let letter = word.last, letter != "-" {
        guard let long = short[letter] else {
          throw UsageError(description: "unknown option '\(word)'")
        }
        word = "--" + long
      }
      if onlyPositionals || !word.hasPrefix("--") {
        positionals.append(word)
        continue
      }
      if word == "--" {
        onlyPositionals = true
        continue
      }
      var name = String(word.dropFirst(2))
      var inline: String? = nil
      if let eq = name.firstIndex(of: "=") {
        inline = String(name[name.index(after: eq)...])
        name = String(name[..<eq])
      }
      if valued.contains(name) {
        if let inline {
          values[name, default: []].append(inline)
        } else {
          guard i < arguments.count else { throw UsageError(description: "option --\(name) needs a value") }
          values[name, default: []].append(arguments[i])
          i += 1
        }
      } else if flagNames.contains(name), inline == nil {
        flags.insert(name)
      } else if flagNames.contains(name) {
        throw UsageError(description: "option --\(name) takes no value")
      } else {
        let known = Array(valued) + Array(flagNames)
        throw UsageError(
          description: "unknown option '--\(name)'"
            + Suggestion.hint(for: name, among: known.sorted(), prefix: "--"))
      }
    }
  }

  /// The last value given for `name`.
  public func value(_ name: String) -> String? { values[name]?.last }
  /// Every value given for `name`, in order.
  public func all(_ name: String) -> [String] { values[name] ?? [] }
  /// Whether `--name` was given.
  public func flag(_ name: String) -> Bool { flags.contains(name) }
}
