/// locd-session's configuration: a user's own file, `$XDG_CONFIG_HOME/locd/session.conf`
/// (docs/man/locd-session.1, docs/LIGHTDARK.md), read through this table like locd.conf
/// through `DaemonConfig.keys`. Every key is optional.
///
///     [LightDark]
///     Dark=sunset
///     Light=sunrise
///     [Faces]
///     Portal=auto
///     Darkman=yes
///     Scripts=yes
public struct SessionConfig: ConfigTable, Sendable, Hashable {
  /// Whether locd-session serves the desktop portal's Settings backend.
  public enum PortalChoice: String, Sendable, Hashable, CaseIterable {
    /// Only on the desktops without a light/dark scheduler of their own
    /// (`portalDesktops`, the .portal file's UseIn=): on GNOME or KDE the desktop's own backend
    /// answers, and a second one's SettingChanged would reach apps too (xdg-desktop-portal
    /// 1.16 forwards the signals of every Settings backend).
    case auto
    /// Always.
    case yes
    /// Never.
    case no
  }

  /// The dark rule's text (a solar event, optionally with an offset; TIMERS.md).
  public var dark = "sunset"
  /// The light rule's text.
  public var light = "sunrise"
  /// Whether to serve org.freedesktop.impl.portal.Settings.
  public var portal = PortalChoice.auto
  /// Whether to take darkman's bus name and interface.
  public var darkman = true
  /// Whether to run the dark-mode.d and light-mode.d scripts.
  public var scripts = true

  /// The defaults: dark at sunset, light at sunrise, every face.
  public init() {}

  /// The desktops `Portal=auto` serves the portal backend in: those whose session has no
  /// light/dark scheduler and no Settings backend of its own, by their XDG_CURRENT_DESKTOP
  /// names. data/locd.portal's UseIn= is the same list (a test holds them together).
  public static let portalDesktops = [
    "sway", "Hyprland", "river", "niri", "Wayfire", "labwc", "wlroots", "i3",
  ]

  /// Whether `Portal=` serves the backend in a session whose XDG_CURRENT_DESKTOP is
  /// `desktops` (colon-separated, compared without case as xdg-desktop-portal does).
  public func servesPortal(currentDesktop desktops: String?) -> Bool {
    switch portal {
    case .yes: return true
    case .no: return false
    case .auto:
      let names = (desktops ?? "").split(separator: ":").map { $0.lowercased() }
      return names.contains { name in SessionConfig.portalDesktops.contains { $0.lowercased() == name } }
    }
  }

  /// The rules of `Dark=` and `Light=`, or why they cannot be a schedule.
  public var rules: Result<LightDarkRules, LightDarkRules.Problem> {
    Result { () throws(LightDarkRules.Problem) in try LightDarkRules(dark: dark, light: light) }
  }

  /// Whether `text` is a rule `Dark=` or `Light=` takes alone (the pair is checked by `rules`).
  static func isSolarRule(_ text: String) -> Bool {
    guard text.utf8.count <= LightDarkRules.maxRuleBytes, let rule = try? TimerRule(parsing: text) else {
      return false
    }
    return rule.solarEvent != nil && rule.weekdays == .all
  }

  /// Every key, in the order of locd-session(1).
  public static let keys: [ConfigKey<SessionConfig>] = [
    .required(
      "LightDark", "Dark", "RULE", what: "a solar event with an optional offset (sunset, civil-dusk+10m)",
      \.dark,
      valid: isSolarRule),
    .required(
      "LightDark", "Light", "RULE",
      what: "a solar event with an optional offset (sunrise, elevation:3:morning)",
      \.light, valid: isSolarRule),
    .choice("Faces", "Portal", "auto|yes|no", \.portal, PortalChoice.allCases.map { ($0.rawValue, $0) }),
    .choice("Faces", "Darkman", "BOOL", \.darkman, DaemonConfig.yesNo, synonyms: DaemonConfig.yesNoSynonyms),
    .choice("Faces", "Scripts", "BOOL", \.scripts, DaemonConfig.yesNo, synonyms: DaemonConfig.yesNoSynonyms),
  ]
}
