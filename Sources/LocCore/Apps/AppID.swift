/// An app's identity as apps name themselves: a reverse-DNS name (`org.example.Weather`, as
/// Flatpak uses) or a desktop-file id (`firefox-esr`), without the `.desktop` suffix.
/// 1 to 255 bytes of ASCII letters, digits, `.`, `_` and `-`, starting with a letter or a
/// digit, with no empty element (`..`) and no trailing dot: what Flatpak, D-Bus well-known
/// names and desktop-file ids have in common, and nothing a log line or a path could trip on.
public struct AppID: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The id as written.
  public let rawValue: String

  /// The longest id: 255 bytes, the limit of a D-Bus name and of a Flatpak app id.
  public static let maxBytes = 255

  /// The id, or nil when `text` is not one.
  public init?(_ text: String) {
    let bytes = Array(text.utf8)
    guard (1...AppID.maxBytes).contains(bytes.count), let first = bytes.first, let last = bytes.last,
      AppID.isAlphanumeric(first), last != UInt8(ascii: ".")
    else { return nil }
    var previous: UInt8 = 0
    for b in bytes {
      let allowed =
        AppID.isAlphanumeric(b) || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
      guard allowed, !(b == UInt8(ascii: ".") && previous == UInt8(ascii: ".")) else { return nil }
      previous = b
    }
    rawValue = text
  }

  static func isAlphanumeric(_ b: UInt8) -> Bool {
    (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
  }

  /// What an id must look like, for error messages.
  public static let rule =
    "an app id is 1-255 ASCII letters, digits, '.', '_' or '-', starting with a letter or digit "
    + "(reverse-DNS such as org.example.Weather, or a desktop-file id)"

  public static func < (a: AppID, b: AppID) -> Bool { a.rawValue < b.rawValue }
  public var description: String { rawValue }
}

/// Whose decision: an app of one user. Authorization is kept per (uid, app id): the same app
/// run by two people has two decisions.
public struct AppKey: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The user (SO_PEERCRED's uid).
  public var uid: UInt32
  /// The app.
  public var app: AppID

  /// A key.
  public init(uid: UInt32, app: AppID) {
    self.uid = uid
    self.app = app
  }

  public static func < (a: AppKey, b: AppKey) -> Bool { (a.uid, a.app) < (b.uid, b.app) }
  public var description: String { "\(app) (uid \(uid))" }
}
