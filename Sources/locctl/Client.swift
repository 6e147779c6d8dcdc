import LocCore
import LocProtocol
import LocSystem

#if canImport(Glibc)
  import Glibc
#endif

/// Connects to locd on `socket` and runs `body`; turns failures into one clear line and an
/// exit status.
func withDaemon(_ socket: String, _ body: (ControlClient) throws(ControlClient.Failure) -> Int32) -> Int32 {
  do {
    let client = try ControlClient(path: socket, client: "locctl")
    return try body(client)
  } catch {
    printError("locctl: \(error)")
    switch error {
    case .notRunning: return ExitStatus.notRunning
    case .permissionDenied: return ExitStatus.permission
    case .daemon(let reply):
      return reply.code == .known(.permissionDenied) ? ExitStatus.permission : ExitStatus.failure
    case .versionMismatch, .timedOut, .protocolError: return ExitStatus.failure
    }
  }
}

/// Parses options or prints the usage problem; nil means "exit with usage status".
func parseOptions(_ arguments: [String], valued: Set<String> = [], flags: Set<String> = [], command: String)
  -> CommandLineOptions?
{
  do {
    return try CommandLineOptions(arguments, valued: valued, flagNames: flags)
  } catch {
    printError("locctl \(command): \(error)")
    return nil
  }
}

/// Terminal styling, only when stdout is a terminal and NO_COLOR is unset (no-color.org).
enum Style {
  static let enabled: Bool = isatty(STDOUT_FILENO) == 1 && getenv("NO_COLOR") == nil
  static func bold(_ s: String) -> String { enabled ? "\u{1B}[1m\(s)\u{1B}[0m" : s }
  static func green(_ s: String) -> String { enabled ? "\u{1B}[32m\(s)\u{1B}[0m" : s }
  static func yellow(_ s: String) -> String { enabled ? "\u{1B}[33m\(s)\u{1B}[0m" : s }
  static func red(_ s: String) -> String { enabled ? "\u{1B}[31m\(s)\u{1B}[0m" : s }

  /// `s` safe to print to a terminal: control characters (C0, DEL, C1) and the
  /// bidirectional overrides that reorder what follows become `\u{XX}`, so a name someone
  /// set can neither move the cursor, retitle the window nor hide text.
  static func visible(_ s: String) -> String {
    var out = ""
    for scalar in s.unicodeScalars {
      let v = scalar.value
      if scalar.properties.generalCategory == .control || (0x202A...0x202E).contains(v)
        || (0x2066...0x2069).contains(v)
      {
        out += "\\u{" + String(v, radix: 16, uppercase: true) + "}"
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}

/// Local wall time `HH:MM` of an instant, with a fixed UTC offset in seconds.
func localClock(_ t: Instant?, offset: Int) -> String? {
  guard let t else { return nil }
  return TimeFormat.clock(secondOfDay: Int(t.adding(seconds: Double(offset)).utcSecondOfDay))
}
