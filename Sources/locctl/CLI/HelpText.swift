import LocHost

/// The help texts, made from the command table: the overview (`locctl --help`) and one
/// command's help (`locctl help CMD`, `locctl CMD --help`).
enum HelpText {
  /// The width help is wrapped to: the terminal's, or 80 columns when standard output is no
  /// terminal (issue 43, item 10: `help status` had lines of 170 columns).
  static let width = StandardStreams.outputColumns.map { max($0, 40) } ?? 80

  /// `text`'s paragraphs (lines that are not indented are joined) wrapped at `width`;
  /// indented lines are kept as they are.
  static func wrap(_ text: String) -> String {
    var out = ""
    var paragraph: [Substring] = []
    func flush() {
      if !paragraph.isEmpty { out += hang("", paragraph.joined(separator: " ")) }
      paragraph = []
    }
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.isEmpty {
        flush()
        out += "\n"
      } else if line.first == " " {
        flush()
        out += line + "\n"
      } else {
        paragraph.append(line)
      }
    }
    flush()
    return out.hasSuffix("\n\n") ? String(out.dropLast()) : out
  }

  /// `head` as it is, then `body`'s words wrapped at `width`, each further line indented
  /// to where `body` began.
  static func hang(_ head: String, _ body: String) -> String {
    let indent = String(repeating: " ", count: head.count)
    var out = ""
    var line = head
    var started = false
    for word in body.split(separator: " ") {
      if started && line.count + 1 + word.count > width {
        out += line + "\n"
        line = indent + word
      } else {
        line += (started ? " " : "") + word
      }
      started = true
    }
    return out + line + "\n"
  }

  /// `usage: locctl [OPTIONS] COMMAND [ARGS]`, the commands grouped by whether they need
  /// locd, the global options and where to read more.
  static func overview(_ table: [CommandSpec]) -> String {
    var out = "usage: locctl [OPTIONS] [COMMAND] [ARGS...]\n\n"
    out += wrap(
      "Query and control locd, the location manager; and solar tables, time zones and NMEA decoding "
        + "offline. Without a command: status.")
    let shown = table.filter { !$0.hidden }
    let column = (shown.map(\.name.count).max() ?? 0) + 2
    for (title, daemon) in [("commands (talk to locd)", true), ("commands (offline)", false)] {
      out += "\n\(title):\n"
      for c in shown where c.needsDaemon == daemon {
        out += hang("  " + c.name.padded(column), c.summary)
      }
    }
    out += "\noptions (before or after the command):\n" + options(GlobalOptions.all)
    out += "  --version".padded(optionWidth(GlobalOptions.all) + 2) + "print the versions and exit\n"
    out += "\nSee 'locctl help COMMAND' for a command's options, and locctl(1).\n"
    return out
  }

  /// One command: its synopses, what it does, its options, the global ones, examples.
  static func command(_ c: CommandSpec) -> String {
    var out = ""
    for (i, line) in c.usage.enumerated() {
      out += hang((i == 0 ? "usage: " : "       ") + "locctl ", line)
    }
    out += "\n" + wrap(c.summary.capitalizedFirst + ".")
    if !c.help.isEmpty { out += "\n" + wrap(c.help) }
    if !c.options.isEmpty { out += "\noptions:\n" + options(c.options) }
    out += "\nglobal options:\n" + options(GlobalOptions.all)
    if !c.examples.isEmpty {
      out += "\nexamples:\n" + c.examples.map { "  " + $0 + "\n" }.joined()
    }
    return out
  }

  /// Aligned option lines.
  static func options(_ list: [OptionSpec]) -> String {
    let column = optionWidth(list)
    return list.map { hang("  " + $0.synopsis.padded(column), $0.help) }.joined()
  }

  /// The width of the option column.
  static func optionWidth(_ list: [OptionSpec]) -> Int {
    max(18, (list.map(\.synopsis.count).max() ?? 0) + 2)
  }
}

extension String {
  /// The string padded with spaces to `width` characters (or one space after when longer).
  func padded(_ width: Int) -> String {
    count >= width ? self + " " : self + String(repeating: " ", count: width - count)
  }

  /// The string with its first letter in upper case.
  var capitalizedFirst: String {
    guard let first else { return self }
    return first.uppercased() + dropFirst()
  }
}
