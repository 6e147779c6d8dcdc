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
    let sections = Set(table.map(\.section))
    var listsStarted: Set<String> = []
    for entry in file.entries {
      func problem(_ message: String) {
        problems.append(ConfigDiagnostic(file: fileName, line: entry.line, message: message))
      }
      guard let key = byID["\(entry.section)/\(entry.key)"] else {
        if sections.contains(entry.section) {
          problem("unknown key '\(entry.key)' in [\(entry.section)]")
        } else {
          problem("unknown section [\(entry.section)]")
        }
        continue
      }
      // systemd style: a file that names a list replaces it; an empty value clears it.
      if key.isList, listsStarted.insert(key.id).inserted { key.clear(&self) }
      if let message = key.apply(entry.value, to: &self) { problem(message) }
    }
    return problems.sorted(by: { $0.line < $1.line })
  }
}
