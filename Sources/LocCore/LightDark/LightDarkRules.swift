/// When a user's desktop turns dark and light again: two solar rules of the timer grammar
/// without days (docs/TIMERS.md): an event (`sunset`, `civil-dusk`, `elevation:-3:evening`)
/// with an optional offset (`sunset+15m`). By default dark at sunset and light at sunrise;
/// two elevations give gammastep's idea of a high and a low threshold
/// (`elevation:-3:evening` and `elevation:3:morning`).
public struct LightDarkRules: Sendable, Hashable, CustomStringConvertible {
  /// Dark from each occurrence of this rule.
  public let dark: TimerRule
  /// Light from each occurrence of this rule.
  public let light: TimerRule

  /// Dark at sunset, light at sunrise.
  public static let standard = LightDarkRules(
    checked: TimerRule(anchor: .solar(.sunset, offset: .zero)),
    light: TimerRule(anchor: .solar(.sunrise, offset: .zero)))

  /// The longest rule text read (the longest rule, an elevation with an offset, is about 40).
  public static let maxRuleBytes = 64

  private init(checked dark: TimerRule, light: TimerRule) {
    self.dark = dark
    self.light = light
  }

  /// Why a pair of rules cannot be a schedule.
  public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, naming the rule.
    public var description: String
  }

  /// The rules `dark` and `light`: each a solar event with an optional offset, on every day,
  /// and not the same moment.
  public init(dark: TimerRule, light: TimerRule) throws(Problem) {
    for (name, rule) in [("dark", dark), ("light", light)] {
      guard rule.solarEvent != nil else {
        throw Problem(
          description:
            "\(name) rule '\(rule)' is a time of day; light and dark follow the Sun: use an event such as sunset, civil-dusk+10m or elevation:-3:evening"
        )
      }
      guard rule.weekdays == .all else {
        throw Problem(description: "\(name) rule '\(rule)' names days; light and dark change every day")
      }
    }
    guard dark != light else {
      throw Problem(description: "the dark and the light rule are the same ('\(dark)'): nothing would change")
    }
    self.init(checked: dark, light: light)
  }

  /// Parses both rule texts (TIMERS.md's grammar, solar events only).
  public init(dark: some StringProtocol, light: some StringProtocol) throws(Problem) {
    func parse(_ name: String, _ text: some StringProtocol) throws(Problem) -> TimerRule {
      guard text.utf8.count <= LightDarkRules.maxRuleBytes else {
        throw Problem(description: "\(name) rule is longer than \(LightDarkRules.maxRuleBytes) bytes")
      }
      do { return try TimerRule(parsing: text) } catch {
        throw Problem(description: "\(name) rule: \(error)")
      }
    }
    try self.init(dark: try parse("dark", dark), light: try parse("light", light))
  }

  /// The rule that brings `mode`.
  public func rule(for mode: LightDarkMode) -> TimerRule { mode == .dark ? dark : light }

  /// The solar events the two rules need.
  public var events: [SolarEvent] { [dark.solarEvent, light.solarEvent].compactMap { $0 } }

  /// `dark at sunset, light at sunrise`.
  public var description: String { "dark at \(dark), light at \(light)" }
}
