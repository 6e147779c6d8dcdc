/// What the kernel says about a peer process: the systemd unit its cgroup is in, read by the
/// shell from /proc/PID/cgroup (cgroup(7)) and classified here.
///
/// A Flatpak app runs in a scope `app-flatpak-ID-N.scope`; desktops that follow systemd's
/// naming for apps (systemd.io/DESKTOP_ENVIRONMENTS) start apps in
/// `app[-LAUNCHER]-ID[@RANDOM].service` or `app[-LAUNCHER]-ID-RANDOM.scope`, with `-` inside
/// the id escaped as `\x2d`, so the literal dashes separate the parts. Either names the app:
/// a sandboxed process cannot move itself to another cgroup. Any other unit (a system
/// service, a login session's scope) is shown as it is, without an app id.
public enum PeerUnit: Sendable, Hashable {
  /// A Flatpak app's scope.
  case flatpak(AppID, unit: String)
  /// A unit named by systemd's convention for apps.
  case app(AppID, unit: String)
  /// Some other unit.
  case unit(String)
  /// Not in a unit (the root cgroup, or a cgroup no unit names).
  case none
  /// The cgroup could not be read (the process is gone, /proc is hidden, ...).
  case unknown(String)

  /// The app id the kernel vouches for, if any.
  public var verifiedApp: AppID? {
    switch self {
    case .flatpak(let id, _), .app(let id, _): return id
    case .unit, .none, .unknown: return nil
    }
  }

  /// The unit's name, if the peer is in one.
  public var unitName: String? {
    switch self {
    case .flatpak(_, let u), .app(_, let u), .unit(let u): return u
    case .none, .unknown: return nil
    }
  }

  /// The longest /proc/PID/cgroup text read (a hybrid layout lists about a dozen hierarchies).
  public static let maxFileBytes = 16 * 1024

  /// Classifies the text of /proc/PID/cgroup. The cgroup2 line (`0::PATH`) is used when it
  /// names a cgroup below the root; otherwise (a hybrid layout whose systemd tracks processes
  /// in the v1 `name=systemd` hierarchy) the `name=systemd` line is.
  public init(cgroupFile text: String) {
    var unified: Substring? = nil
    var named: Substring? = nil
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
      guard parts.count == 3 else { continue }
      if parts[0] == "0" && parts[1].isEmpty { unified = parts[2] }
      if parts[1] == "name=systemd" { named = parts[2] }
    }
    if let path = unified, path != "/" {
      self.init(cgroupPath: String(path))
    } else if let path = named {
      self.init(cgroupPath: String(path))
    } else {
      self = .none
    }
  }

  /// Classifies a cgroup path: the innermost element that names a unit (`.service` or
  /// `.scope`) decides; elements below it (a unit's own sub-cgroups) are the unit's.
  public init(cgroupPath path: String) {
    let units = path.split(separator: "/").filter { $0.hasSuffix(".service") || $0.hasSuffix(".scope") }
    guard let unit = units.last.map(String.init) else {
      self = .none
      return
    }
    guard let (launcher, id) = PeerUnit.appName(unit) else {
      self = .unit(unit)
      return
    }
    self = launcher == "flatpak" && unit.hasSuffix(".scope") ? .flatpak(id, unit: unit) : .app(id, unit: unit)
  }

  /// The launcher and app id of a unit named by the convention, or nil.
  static func appName(_ unit: String) -> (launcher: String?, id: AppID)? {
    guard unit.hasPrefix("app-") else { return nil }
    var rest = Substring(unit.dropFirst(4))
    var parts: [Substring]
    if rest.hasSuffix(".scope") {
      rest = rest.dropLast(6)
      parts = rest.split(separator: "-", omittingEmptySubsequences: false)
      // ...-ID-RANDOM: the last part is the random one.
      guard parts.count == 2 || parts.count == 3 else { return nil }
      parts.removeLast()
    } else if rest.hasSuffix(".service") {
      rest = rest.dropLast(8)
      if let at = rest.firstIndex(of: "@") { rest = rest[..<at] }
      parts = rest.split(separator: "-", omittingEmptySubsequences: false)
      // Before systemd 248, app-LAUNCHER-ID-autostart.service.
      if parts.count == 3, parts[2] == "autostart" { parts.removeLast() }
      guard parts.count == 1 || parts.count == 2 else { return nil }
    } else {
      return nil
    }
    guard let last = parts.last, let text = unescape(last), let id = AppID(text) else { return nil }
    let launcher = parts.count == 2 ? String(parts[0]) : nil
    if let launcher, launcher.isEmpty { return nil }
    return (launcher, id)
  }

  /// Undoes systemd's unit-name escaping (`\xNN`, systemd-escape(1)); nil for a malformed one.
  static func unescape(_ text: Substring) -> String? {
    var out: [UInt8] = []
    var bytes = Array(text.utf8)[...]
    while let b = bytes.first {
      bytes = bytes.dropFirst()
      guard b == UInt8(ascii: "\\") else {
        out.append(b)
        continue
      }
      guard bytes.count >= 3, bytes.first == UInt8(ascii: "x"),
        let v = UInt8(String(decoding: bytes.dropFirst().prefix(2), as: UTF8.self), radix: 16)
      else { return nil }
      out.append(v)
      bytes = bytes.dropFirst(3)
    }
    return String(validating: out, as: UTF8.self)
  }
}
