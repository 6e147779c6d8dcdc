/// A parsed systemd-style INI file (`[Section]`, `Key=Value`, `#`/`;` comments).
/// Only syntax is checked here; `DaemonConfig` gives the keys meaning.
public struct ConfigFile: Sendable {
  /// One `Key=Value` line.
  public struct Entry: Sendable, Hashable {
    /// The section it is in, e.g. "Daemon".
    public var section: String
    /// The key, as written.
    public var key: String
    /// The value with surrounding white space removed.
    public var value: String
    /// 1-based line number.
    public var line: Int
  }

  /// A problem at a line.
  public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
    /// 1-based line number.
    public var line: Int
    /// What is wrong.
    public var message: String
    public var description: String { "line \(line): \(message)" }
  }

  /// Entries in file order.
  public var entries: [Entry]

  /// Parses `text`; syntax errors are collected, not thrown, so all are reported at once.
  public static func parse(_ text: String) -> (ConfigFile, [Problem]) {
    var entries: [Entry] = []
    var problems: [Problem] = []
    var section: String? = nil
    var lineNumber = 0
    for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
      lineNumber += 1
      let line = raw.trimmingSpaces()
      if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
      if line.hasPrefix("[") {
        guard line.hasSuffix("]"), line.count > 2 else {
          problems.append(Problem(line: lineNumber, message: "malformed section header '\(line)'"))
          continue
        }
        section = String(line.dropFirst().dropLast())
        continue
      }
      guard let eq = line.firstIndex(of: "=") else {
        problems.append(Problem(line: lineNumber, message: "expected Key=Value, got '\(line)'"))
        continue
      }
      guard let current = section else {
        problems.append(Problem(line: lineNumber, message: "assignment outside a [Section]"))
        continue
      }
      let key = line[..<eq].trimmingSpaces()
      let value = line[line.index(after: eq)...].trimmingSpaces()
      guard !key.isEmpty else {
        problems.append(Problem(line: lineNumber, message: "empty key"))
        continue
      }
      entries.append(Entry(section: current, key: String(key), value: String(value), line: lineNumber))
    }
    return (ConfigFile(entries: entries), problems)
  }
}

extension StringProtocol {
  /// The text without leading and trailing spaces, tabs and carriage returns.
  public func trimmingSpaces() -> Substring {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
    let s = self[...].drop(while: isSpace)
    return Substring(s.reversed().drop(while: isSpace).reversed())
  }
}
