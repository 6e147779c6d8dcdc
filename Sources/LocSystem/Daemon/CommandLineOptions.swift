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

/// "Did you mean ...?": the known word closest to a mistyped one.
public enum Suggestion {
  /// The candidate closest to `word`: one it starts (a unique abbreviation), else the
  /// nearest by edit distance (insertions, deletions, substitutions and swaps of neighbours,
  /// case ignored) when that is small for the word's length; nil when nothing is close.
  public static func closest(to word: String, among candidates: [String]) -> String? {
    let lowered = word.lowercased()
    guard !lowered.isEmpty else { return nil }
    let prefixed = candidates.filter { $0.lowercased().hasPrefix(lowered) }
    if prefixed.count == 1 { return prefixed[0] }
    let limit = max(1, min(3, lowered.count / 3 + 1))
    var best: (word: String, distance: Int)? = nil
    for candidate in candidates {
      let d = distance(lowered, candidate.lowercased())
      if d <= limit, d < (best?.distance ?? Int.max) { best = (candidate, d) }
    }
    return best?.word
  }

  /// `; did you mean 'X'?` or nothing.
  public static func hint(for word: String, among candidates: [String], prefix: String = "") -> String {
    closest(to: word, among: candidates).map { "; did you mean '\(prefix)\($0)'?" } ?? ""
  }

  /// The optimal string alignment distance between `a` and `b` (Damerau–Levenshtein with
  /// each substring edited at most once). Words here are short: quadratic is fine, and the
  /// input is cut to 64 characters so a long argument costs nothing.
  public static func distance(_ a: String, _ b: String) -> Int {
    let x = Array(a.prefix(64))
    let y = Array(b.prefix(64))
    if x.isEmpty || y.isEmpty { return max(x.count, y.count) }
    var previous2 = [Int](repeating: 0, count: y.count + 1)
    var previous = Array(0...y.count)
    var current = [Int](repeating: 0, count: y.count + 1)
    for i in 1...x.count {
      current[0] = i
      for j in 1...y.count {
        let cost = x[i - 1] == y[j - 1] ? 0 : 1
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
          current[j] = min(current[j], previous2[j - 2] + 1)
        }
      }
      (previous2, previous, current) = (previous, current, previous2)
    }
    return previous[y.count]
  }
}
