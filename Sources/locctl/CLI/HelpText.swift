/// The help texts, made from the command table: the overview (`locctl --help`) and one
/// command's help (`locctl help CMD`, `locctl CMD --help`).
enum HelpText {
  /// `usage: locctl [OPTIONS] COMMAND [ARGS]`, the commands grouped by whether they need
  /// locd, the global options and where to read more.
  static func overview(_ table: [CommandSpec]) -> String {
    var out = "usage: locctl [OPTIONS] [COMMAND] [ARGS...]\n\n"
    out += "Query and control locd, the location manager; and solar tables, time zones and NMEA\n"
    out += "decoding offline. Without a command: status.\n"
    let shown = table.filter { !$0.hidden }
    let width = (shown.map(\.name.count).max() ?? 0) + 2
    for (title, daemon) in [("commands (talk to locd)", true), ("commands (offline)", false)] {
      out += "\n\(title):\n"
      for c in shown where c.needsDaemon == daemon {
        out += "  " + c.name.padded(width) + c.summary + "\n"
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
      out += (i == 0 ? "usage: " : "       ") + "locctl " + line + "\n"
    }
    out += "\n" + c.summary.capitalizedFirst + ".\n"
    if !c.help.isEmpty { out += "\n" + c.help + (c.help.hasSuffix("\n") ? "" : "\n") }
    if !c.options.isEmpty { out += "\noptions:\n" + options(c.options) }
    out += "\nglobal options:\n" + options(GlobalOptions.all)
    if !c.examples.isEmpty {
      out += "\nexamples:\n" + c.examples.map { "  " + $0 + "\n" }.joined()
    }
    return out
  }

  /// Aligned option lines.
  static func options(_ list: [OptionSpec]) -> String {
    let width = optionWidth(list)
    return list.map { "  " + $0.synopsis.padded(width) + $0.help + "\n" }.joined()
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
