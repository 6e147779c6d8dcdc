/// A value that configuration files are read into through a table of keys: locd.conf's
/// `DaemonConfig`, an apps.d policy file's `AppRule`. `init()` gives the defaults.
public protocol ConfigTable: Sendable {
  /// The defaults.
  init()
  /// Every key, in the order of the documentation.
  static var keys: [ConfigKey<Self>] { get }
}

/// One key of a configuration file (locd.conf, an apps.d policy): its section and name, the
/// values it takes, how it reads one into a `Root` and how it writes the one in effect.
/// `DaemonConfig.keys` is the table of locd.conf's: `apply` reads through it,
/// `--check-config` prints through it, and a test holds locd.conf(5) and the shipped example
/// to it (keys, defaults and ranges).
public struct ConfigKey<Root: ConfigTable>: Sendable, CustomStringConvertible {
  /// The section, e.g. `Position`.
  public let section: String
  /// The key, e.g. `FreshFor`.
  public let name: String
  /// What a value is, as locd.conf(5) names it: `SPAN`, `DISTANCE`, `N`, `PATH` ...
  public let placeholder: String
  /// The values allowed, in the words of the man page and the error messages
  /// (`1s to 1h`, `1 to 65536`); `nil` when any value of the kind is.
  public let allowed: String?
  /// A list: the key may be given several times, and an empty value clears the list.
  public let isList: Bool
  /// Reads a value into the configuration; the problem, if the value is refused.
  let read: @Sendable (inout Root, String) -> String?
  /// The values in effect, as the file writes them (one per line for a list).
  let show: @Sendable (Root) -> [String]
  /// Empties a list before a file's first line of it.
  let clear: @Sendable (inout Root) -> Void

  /// A key from its parts (the static helpers below cover the usual kinds).
  init(
    section: String, name: String, placeholder: String, allowed: String?, isList: Bool,
    read: @escaping @Sendable (inout Root, String) -> String?, show: @escaping @Sendable (Root) -> [String],
    clear: @escaping @Sendable (inout Root) -> Void
  ) {
    self.section = section
    self.name = name
    self.placeholder = placeholder
    self.allowed = allowed
    self.isList = isList
    self.read = read
    self.show = show
    self.clear = clear
  }

  /// `Section/Name`, the key's identity in the table.
  public var id: String { "\(section)/\(name)" }

  /// `[Section] Name=`.
  public var description: String { "[\(section)] \(name)=" }

  /// The values in effect in `config`, as locd.conf writes them.
  public func values(in config: Root) -> [String] { show(config) }

  /// The default values (for a list, its default entries; `[""]` when the default is empty).
  public var defaults: [String] { show(Root()) }

  /// Reads `value` into `config`: nil when taken, else the problem, starting with `Name=`.
  public func apply(_ value: String, to config: inout Root) -> String? { read(&config, value) }
}

// MARK: - Kinds of value

extension ConfigKey {
  /// A key whose text is parsed into a `T`, checked against `range`, and written back by
  /// `format`. `what` names the kind in messages ("a time span"); the default value serves as
  /// the example in them.
  static func ranged<T: Comparable & Sendable>(
    _ section: String, _ name: String, _ placeholder: String, what: String,
    _ path: WritableKeyPath<Root, T> & Sendable, range: ClosedRange<T>,
    parse: @escaping @Sendable (String) -> Result<T, ValueError>, format: @escaping @Sendable (T) -> String
  ) -> ConfigKey {
    let allowed = "\(format(range.lowerBound)) to \(format(range.upperBound))"
    let example = format(Root()[keyPath: path])
    return ConfigKey(
      section: section, name: name, placeholder: placeholder, allowed: allowed, isList: false,
      read: { config, text in
        let value: T
        switch parse(text) {
        case .success(let v): value = v
        case .failure(let e):
          return "\(name)= must be \(what) from \(allowed), such as \(example), not \(quote(text)) (\(e))"
        }
        guard range.contains(value) else {
          return
            "\(name)= must be \(what) from \(allowed), such as \(example), not \(quote(text)) (out of range)"
        }
        config[keyPath: path] = value
        return nil
      },
      show: { [format(($0)[keyPath: path])] }, clear: { _ in })
  }

  /// A time span (`TimeSpan`) within `range`.
  static func span(
    _ section: String, _ name: String, _ path: WritableKeyPath<Root, Duration> & Sendable,
    _ range: ClosedRange<Duration>
  ) -> ConfigKey {
    ranged(
      section, name, "SPAN", what: "a time span", path, range: range,
      parse: { text in
        do throws(TimeSpan.ParseError) { return .success(try TimeSpan.parse(text)) } catch {
          return .failure(ValueError(error.description))
        }
      }, format: TimeSpan.format)
  }

  /// A time span within `range`, or `off` (nil): a bound that may be switched off.
  static func spanOrOff(
    _ section: String, _ name: String, _ path: WritableKeyPath<Root, Duration?> & Sendable,
    _ range: ClosedRange<Duration>
  ) -> ConfigKey {
    let allowed = "\(TimeSpan.format(range.lowerBound)) to \(TimeSpan.format(range.upperBound)), or off"
    let format: @Sendable (Duration?) -> String = { $0.map(TimeSpan.format) ?? "off" }
    let example = format(Root()[keyPath: path])
    return ConfigKey(
      section: section, name: name, placeholder: "SPAN|off", allowed: allowed, isList: false,
      read: { config, text in
        if text.lowercased() == "off" {
          config[keyPath: path] = nil
          return nil
        }
        let problem = "\(name)= must be a time span from \(allowed), such as \(example), not \(quote(text))"
        let value: Duration
        do throws(TimeSpan.ParseError) { value = try TimeSpan.parse(text) } catch {
          return "\(problem) (\(error))"
        }
        guard range.contains(value) else { return "\(problem) (out of range)" }
        config[keyPath: path] = value
        return nil
      },
      show: { [format($0[keyPath: path])] }, clear: { _ in })
  }

  /// A distance (`DaemonConfig.parseDistance`) within `range`.
  static func distance(
    _ section: String, _ name: String, _ path: WritableKeyPath<Root, Meters> & Sendable,
    _ range: ClosedRange<Meters>
  ) -> ConfigKey {
    let parse = reading(DaemonConfig.parseDistance, else: "not a number of metres, m, or kilometres, km")
    return ranged(
      section, name, "DISTANCE", what: "a distance", path, range: range, parse: parse,
      format: DaemonConfig.formatDistance)
  }

  /// A whole number within `range`.
  static func count(
    _ section: String, _ name: String, _ path: WritableKeyPath<Root, Int> & Sendable,
    _ range: ClosedRange<Int>
  ) -> ConfigKey {
    let parse = reading({ Int($0) }, else: "not a whole number")
    return ranged(
      section, name, "N", what: "a whole number", path, range: range, parse: parse, format: { "\($0)" })
  }

  /// A TCP port, 1 to 65535; empty (the default) means none.
  static func port(_ section: String, _ name: String, _ path: WritableKeyPath<Root, Int?> & Sendable)
    -> ConfigKey
  {
    ConfigKey(
      section: section, name: name, placeholder: "PORT", allowed: "1 to 65535", isList: false,
      read: { config, text in
        if text.isEmpty {
          config[keyPath: path] = nil
          return nil
        }
        guard let port = Int(text), (1...65535).contains(port) else {
          return "\(name)= must be a TCP port from 1 to 65535, or empty for none, not \(quote(text))"
        }
        config[keyPath: path] = port
        return nil
      },
      show: { [$0[keyPath: path].map { "\($0)" } ?? ""] }, clear: { _ in })
  }

  /// A parser for `ranged` from one that returns nil, with the reason to give then.
  static func reading<T>(_ parse: @escaping @Sendable (String) -> T?, else reason: String)
    -> @Sendable (String) -> Result<T, ValueError>
  {
    { text in parse(text).map { .success($0) } ?? .failure(ValueError(reason)) }
  }

  /// One of a fixed set of words (any case), each standing for a value; `synonyms` are
  /// accepted too but neither listed nor written.
  static func choice<T: Equatable & Sendable>(
    _ section: String, _ name: String, _ placeholder: String,
    _ path: WritableKeyPath<Root, T> & Sendable, _ words: [(String, T)], synonyms: [(String, T)] = []
  ) -> ConfigKey {
    let names = words.map(\.0)
    let allowed = names.dropLast().joined(separator: ", ") + " or " + names.last!
    let accepted = words + synonyms
    return ConfigKey(
      section: section, name: name, placeholder: placeholder, allowed: allowed, isList: false,
      read: { config, text in
        guard let value = accepted.first(where: { $0.0 == text.lowercased() })?.1 else {
          return "\(name)= must be \(allowed), not \(quote(text))"
        }
        config[keyPath: path] = value
        return nil
      },
      show: { config in [words.first(where: { $0.1 == config[keyPath: path] })?.0 ?? ""] }, clear: { _ in })
  }

  /// A text checked by `valid` (described by `what`); empty means `nil` when `emptyIsNone`.
  static func text(
    _ section: String, _ name: String, _ placeholder: String, what: String,
    _ path: WritableKeyPath<Root, String?> & Sendable, valid: @escaping @Sendable (String) -> Bool
  ) -> ConfigKey {
    ConfigKey(
      section: section, name: name, placeholder: placeholder, allowed: nil, isList: false,
      read: { config, text in
        if text.isEmpty {
          config[keyPath: path] = nil
          return nil
        }
        guard valid(text) else { return "\(name)= must be \(what), not \(quote(text))" }
        config[keyPath: path] = text
        return nil
      },
      show: { [$0[keyPath: path] ?? ""] }, clear: { _ in })
  }

  /// A list of names (`DaemonConfig.isName`), several to a line separated by spaces; an
  /// empty value clears it. Written back one to a line.
  static func names(
    _ section: String, _ name: String, _ placeholder: String, what: String,
    _ path: WritableKeyPath<Root, [String]> & Sendable
  ) -> ConfigKey {
    ConfigKey(
      section: section, name: name, placeholder: placeholder, allowed: nil, isList: true,
      read: { config, text in
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard !words.isEmpty else {
          config[keyPath: path] = []
          return nil
        }
        if let bad = words.first(where: { !DaemonConfig.isName($0) }) {
          return "\(name)= must list \(what)s, not \(quote(bad))"
        }
        for word in words where !config[keyPath: path].contains(word) { config[keyPath: path].append(word) }
        return nil
      },
      show: { $0[keyPath: path].isEmpty ? [""] : $0[keyPath: path] }, clear: { $0[keyPath: path] = [] })
  }

  /// A text that may not be empty, checked by `valid` (described by `what`).
  static func required(
    _ section: String, _ name: String, _ placeholder: String, what: String,
    _ path: WritableKeyPath<Root, String> & Sendable, valid: @escaping @Sendable (String) -> Bool
  ) -> ConfigKey {
    ConfigKey(
      section: section, name: name, placeholder: placeholder, allowed: nil, isList: false,
      read: { config, text in
        guard !text.isEmpty, valid(text) else { return "\(name)= must be \(what), not \(quote(text))" }
        config[keyPath: path] = text
        return nil
      },
      show: { [$0[keyPath: path]] }, clear: { _ in })
  }

  /// An absolute path.
  static func path(
    _ section: String, _ name: String, _ placeholder: String,
    _ path: WritableKeyPath<Root, String> & Sendable
  ) -> ConfigKey {
    required(section, name, placeholder, what: "an absolute path", path, valid: { $0.hasPrefix("/") })
  }

  /// Why a value could not be read, for the end of a message (`not a whole number`).
  struct ValueError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }

  /// `'value'`, shortened to 64 characters: messages quote what the file said.
  static func quote(_ text: String) -> String {
    text.count <= 64 ? "'\(text)'" : "'\(text.prefix(64))...'"
  }
}
