import LocCore
import LocProtocol

/// The rules of locd-session's faces (decision 0065, docs/LIGHTDARK.md), without sd-bus or
/// sockets: what darkman's Mode and the portal's color-scheme say, when their signals go out,
/// when the dark-mode.d or light-mode.d scripts run, and what a write of darkman's Mode asks
/// of locd. The shell feeds it locd's schedules and bus writes and carries out its outputs.
///
/// What locd says is the truth; a write of Mode shows at once (a client reading Mode back
/// after setting it sees its value) and is asked of locd, whose answer then stands. The
/// schedules that arrive together (read in one go: several transitions queued while the
/// process was stopped or the machine slept) are settled once, at the end: the signals and
/// the scripts follow the mode now, once, not each transition missed on the way.
struct LightDarkFace: Sendable {
  /// What happens to the face.
  enum Input: Sendable, Hashable {
    /// locd answered or pushed the user's schedule.
    case schedule(LightDarkView)
    /// Everything that was readable has been fed: act on what is now in effect.
    case settled
    /// darkman's Mode was written.
    case set(LightDarkMode)
    /// locd refused the mode asked for (or could not be asked): back to its schedule.
    case refused
  }

  /// What the shell is asked to do.
  enum Output: Sendable, Hashable {
    /// darkman's ModeChanged and PropertiesChanged of Mode, with this mode.
    case modeChanged(LightDarkMode)
    /// The portal's SettingChanged of org.freedesktop.appearance color-scheme.
    case colorSchemeChanged(UInt32)
    /// Run the scripts of this mode (dark-mode.d or light-mode.d).
    case runScripts(LightDarkMode)
    /// Ask locd to set the mode (`set-mode`).
    case ask(ModeChange)
  }

  /// The schedule locd last gave (nil: none yet).
  private(set) var schedule: LightDarkView?
  /// A mode written to darkman's Mode and not yet answered by locd.
  private var pending: LightDarkMode?
  /// The values last signalled, and the mode the scripts last ran for.
  private var signalledMode = LightDarkMode.light
  private var signalledScheme: UInt32 = 0
  private var applied: LightDarkMode?

  /// A face before locd said anything: Mode light (darkman's has no third value), the
  /// portal's color-scheme 0 (no preference).
  init() {}

  /// The mode in effect, nil while neither locd nor a write said one.
  var mode: LightDarkMode? { pending ?? schedule?.mode }

  /// darkman's Mode: the mode in effect, light while there is none.
  var darkmanMode: LightDarkMode { mode ?? .light }

  /// The portal's color-scheme (its interface XML): 1 dark, 2 light, 0 no preference.
  var colorScheme: UInt32 {
    switch mode {
    case .dark?: return 1
    case .light?: return 2
    case nil: return 0
    }
  }

  /// Handles `input`; the outputs in the order to carry them out.
  mutating func handle(_ input: Input) -> [Output] {
    switch input {
    case .schedule(let s):
      schedule = s
      pending = nil
      return []
    case .settled:
      return settle()
    case .set(let m):
      pending = m
      return [.ask(m == .dark ? .dark : .light)] + settle()
    case .refused:
      pending = nil
      return settle()
    }
  }

  /// The signals and scripts for what changed since they last went out.
  private mutating func settle() -> [Output] {
    var out: [Output] = []
    if darkmanMode != signalledMode {
      signalledMode = darkmanMode
      out.append(.modeChanged(darkmanMode))
    }
    if colorScheme != signalledScheme {
      signalledScheme = colorScheme
      out.append(.colorSchemeChanged(colorScheme))
    }
    if let m = mode, m != applied {
      applied = m
      out.append(.runScripts(m))
    }
    return out
  }
}
