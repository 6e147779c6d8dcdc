/// A problem found while applying a configuration file.
public struct ConfigDiagnostic: Sendable, Hashable, CustomStringConvertible {
  /// File name as given.
  public var file: String
  /// 1-based line.
  public var line: Int
  /// What is wrong.
  public var message: String
  /// A problem at `file:line`.
  public init(file: String, line: Int, message: String) {
    self.file = file
    self.line = line
    self.message = message
  }
  /// `file:line: message`, the form editors jump to.
  public var description: String { "\(file):\(line): \(message)" }
}

extension ConfigTable {
  /// The sections, in table order.
  public static var sections: [String] {
    keys.reduce(into: []) { if $0.last != $1.section { $0.append($1.section) } }
  }

  /// Applies the text of a configuration file over `self`; returns every problem found,
  /// each with `file:line`. Every key is read through `Self.keys`; unknown sections and
  /// keys are problems, so typos do not pass. Never traps, whatever the text.
  public mutating func apply(fileText: String, fileName: String) -> [ConfigDiagnostic] {
    let (file, syntax) = ConfigFile.parse(fileText)
    var problems = syntax.map { ConfigDiagnostic(file: fileName, line: $0.line, message: $0.message) }
    let table = Self.keys
    let byID = Dictionary(table.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    var listsStarted: Set<String> = []
    for entry in file.entries {
      func problem(_ message: String) {
        problems.append(ConfigDiagnostic(file: fileName, line: entry.line, message: message))
      }
      guard let key = byID["\(entry.section)/\(entry.key)"] else {
        problem(Self.unknown(entry.key, in: entry.section, table: table))
        continue
      }
      // systemd style: a file that names a list replaces it; an empty value clears it.
      if key.isList, listsStarted.insert(key.id).inserted { key.clear(&self) }
      if let message = key.apply(entry.value, to: &self) { problem(message) }
    }
    return problems.sorted(by: { $0.line < $1.line })
  }

  /// The problem with a key the table does not have: in a known section, the nearest key
  /// of that section, or the section that holds a key of this name; in an unknown section,
  /// the nearest section.
  static func unknown(_ key: String, in section: String, table: [ConfigKey<Self>]) -> String {
    let sections = table.reduce(into: [String]()) { if !$0.contains($1.section) { $0.append($1.section) } }
    guard sections.contains(section) else {
      return "unknown section [\(section)]" + Suggestion.hint(for: section, among: sections)
    }
    if let home = table.first(where: { $0.name.lowercased() == key.lowercased() && $0.section != section }) {
      return "unknown key '\(key)' in [\(section)]; \(home.name) belongs in [\(home.section)]"
    }
    let names = table.filter { $0.section == section }.map(\.name)
    return "unknown key '\(key)' in [\(section)]" + Suggestion.hint(for: key, among: names)
  }
}
