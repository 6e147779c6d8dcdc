/// Light or dark: what the desktop should look like now (docs/LIGHTDARK.md). A closed
/// enumeration: darkman's Mode and the portal's color-scheme have these two values.
public enum LightDarkMode: String, Sendable, Hashable, CaseIterable {
  /// Light themes (the Sun is up, by the user's rules).
  case light
  /// Dark themes.
  case dark

  /// The other mode.
  public var opposite: LightDarkMode { self == .light ? .dark : .light }
}

/// What `set-mode` (`locctl mode dark|light|toggle|auto`) does to a user's mode.
public enum ModeChange: String, Sendable, Hashable, CaseIterable {
  /// Dark until the next transition.
  case dark
  /// Light until the next transition.
  case light
  /// The other mode than the one in effect, until the next transition.
  case toggle
  /// Back to the schedule: the override ends now.
  case auto
}
