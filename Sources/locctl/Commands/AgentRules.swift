import LocCore

/// The rules of `locctl agent --policy FILE`: how an unattended agent answers prompts.
///
/// ```
/// # APP (an id, a prefix ending in *, or *)  ANSWER  [reduced] [upgrade=always|keep-while-using]
/// org.example.Weather   allow-while-using   upgrade=always
/// org.example.*         allow-once          reduced
/// *                     ignore
/// ```
///
/// The first line whose pattern matches the app answers. `ANSWER` is `allow-once`,
/// `allow-while-using`, `deny`, or `ignore` (leave the prompt unanswered: it times out);
/// `reduced` turns Precise off; `upgrade=` answers upgrade prompts (default
/// `keep-while-using`). A temporary full accuracy prompt (an app granted reduced accuracy
/// asks for full accuracy while in use) is answered `allow-once` by a rule that allows the
/// app without `reduced`, `deny` by one that denies it or says `reduced`. An app no line
/// matches is ignored.
struct AgentRules: Sendable, Hashable {
  /// One line.
  struct Rule: Sendable, Hashable {
    var pattern: String
    var answer: AgentAnswer?
    var precise = true
    var upgrade = AgentAnswer.keepWhileUsing
  }

  /// The rules, in file order.
  var rules: [Rule]

  /// Most rules read.
  static let maxRules = 10_000

  /// The rules of `text`, or the problem with its line.
  init(parsing text: String) throws(RuleError) {
    rules = []
    for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
      let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
      guard !words.isEmpty else { continue }
      guard rules.count < AgentRules.maxRules else { throw RuleError(line: n + 1, "more than 10000 rules") }
      rules.append(try AgentRules.rule(words, line: n + 1))
    }
  }

  static func rule(_ words: [String], line: Int) throws(RuleError) -> Rule {
    guard words.count >= 2 else { throw RuleError(line: line, "a rule is APP ANSWER [OPTIONS]") }
    var rule = Rule(pattern: words[0], answer: nil)
    switch words[1] {
    case "ignore": rule.answer = nil
    case "allow-once", "allow-while-using", "deny": rule.answer = AgentAnswer(rawValue: words[1])
    default:
      throw RuleError(line: line, "answer '\(words[1])' is not allow-once, allow-while-using, deny or ignore")
    }
    for option in words.dropFirst(2) {
      if option == "reduced" {
        rule.precise = false
      } else if option == "upgrade=always" {
        rule.upgrade = .always
      } else if option == "upgrade=keep-while-using" {
        rule.upgrade = .keepWhileUsing
      } else {
        throw RuleError(
          line: line, "option '\(option)' is not reduced, upgrade=always or upgrade=keep-while-using")
      }
    }
    return rule
  }

  /// The answer to a prompt of `kind` about `app` (nil: leave it unanswered), and Precise.
  func answer(_ kind: String, app: String) -> (AgentAnswer, precise: Bool)? {
    guard let rule = rules.first(where: { AgentRules.matches($0.pattern, app) }) else { return nil }
    if kind == AppPrompt.Kind.upgrade.rawValue { return (rule.upgrade, rule.precise) }
    if kind == AppPrompt.Kind.temporaryFullAccuracy.rawValue {
      // Allow Once or Don't Allow: a rule that allows the app allows full accuracy for this
      // use, unless it turns Precise off.
      guard let answer = rule.answer else { return nil }
      return (answer == .deny || !rule.precise ? .deny : .allowOnce, true)
    }
    return rule.answer.map { ($0, rule.precise) }
  }

  /// Whether `pattern` (an id, a prefix ending in `*`, or `*`) matches `app`.
  static func matches(_ pattern: String, _ app: String) -> Bool {
    if pattern.hasSuffix("*") { return app.hasPrefix(pattern.dropLast()) }
    return pattern == app
  }

  /// A problem in a rules file.
  struct RuleError: Error, CustomStringConvertible {
    var line: Int
    var message: String
    init(line: Int, _ message: String) {
      self.line = line
      self.message = message
    }
    var description: String { "line \(line): \(message)" }
  }
}
