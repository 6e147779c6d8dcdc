/// What a timer does when it fires. Every firing is also pushed to `timer-fired` subscribers.
public enum TimerAction: Sendable, Hashable {
  /// Only the `timer-fired` event.
  case event
  /// Start a systemd unit (org.freedesktop.systemd1.Manager.StartUnit, mode "replace").
  case startUnit(String)
  /// Run a program without a shell: `argv[0]` is an absolute path; as `user` (a user name),
  /// else as the configured default command user. Only timers from root-owned files may.
  case command(argv: [String], user: String?)

  /// `event`, `unit:NAME`, `command:PATH`: short, for lists and logs.
  public var summary: String {
    switch self {
    case .event: return "event"
    case .startUnit(let unit): return "unit \(unit)"
    case .command(let argv, let user): return "command \(argv.first ?? "")" + (user.map { " as \($0)" } ?? "")
    }
  }

  /// Whether `name` is a plausible systemd unit name: `NAME.TYPE` with the characters systemd
  /// allows (systemd.unit(5): ASCII letters, digits, ":", "-", "_", ".", "\", "@"), at most 255.
  public static func isValidUnitName(_ name: String) -> Bool {
    let types = [
      "service", "socket", "device", "mount", "automount", "swap", "target", "path", "timer", "slice",
      "scope",
    ]
    guard name.utf8.count <= 255, let dot = name.lastIndex(of: "."), dot != name.startIndex,
      types.contains(String(name[name.index(after: dot)...]))
    else { return false }
    return name.utf8.allSatisfy { c in
      (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39)
        || c == UInt8(ascii: ":") || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
        || c == UInt8(ascii: ".")
        || c == UInt8(ascii: "\\") || c == UInt8(ascii: "@")
    }
  }

  /// Splits a `Command=` line into words like a shell would without expanding anything:
  /// spaces separate words, '...' keeps everything literally, "..." keeps spaces and honours
  /// \" and \\, a backslash outside quotes escapes the next character. `nil` for an open quote.
  public static func splitCommand(_ text: String) -> [String]? {
    var words: [String] = []
    var current = ""
    var inWord = false
    var quote: Character? = nil
    var escaped = false
    for c in text {
      if escaped {
        current.append(c)
        escaped = false
        continue
      }
      switch quote {
      case "'":
        if c == "'" { quote = nil } else { current.append(c) }
      case "\"":
        if c == "\"" { quote = nil } else if c == "\\" { escaped = true } else { current.append(c) }
      default:
        if c == " " || c == "\t" {
          if inWord { words.append(current) }
          current = ""
          inWord = false
        } else if c == "'" || c == "\"" {
          quote = c
          inWord = true
        } else if c == "\\" {
          escaped = true
          inWord = true
        } else {
          current.append(c)
          inWord = true
        }
      }
    }
    guard quote == nil, !escaped else { return nil }
    if inWord { words.append(current) }
    return words
  }
}
