import LocCore
import LocHost

/// A command line after parsing: the command, its positional words and the options given
/// (its own and the global ones), with typed readers for values that carry units.
struct Invocation: Sendable {
  /// The command being run.
  var command: CommandSpec
  /// Positional words, in order.
  var positionals: [String] = []
  /// Option values by name, in the order given.
  var values: [String: [String]] = [:]
  /// Flags given.
  var flags: Set<String> = []

  /// The last value of option `name`.
  func value(_ name: String) -> String? { values[name]?.last }
  /// Every value of option `name`.
  func all(_ name: String) -> [String] { values[name] ?? [] }
  /// Whether flag `name` was given.
  func flag(_ name: String) -> Bool { flags.contains(name) }
  /// Whether `--json` was given.
  var json: Bool { flag("json") }

  /// The command line that talks to the same locd, for hints: `locctl`, or with `--socket`
  /// given `locctl --socket PATH` (issue 43, item 8: the demo's "run 'locctl watch'"
  /// reached no locd).
  var locctlCommand: String {
    guard let path = value("socket"), path != DaemonConfig().socketPath else { return "locctl" }
    // Inside the hint's single quotes: a path with other characters in double quotes.
    let plain = path.unicodeScalars.allSatisfy {
      $0.properties.isAlphabetic || "0123456789/._-+".unicodeScalars.contains($0)
    }
    return "locctl --socket " + (plain ? path : "\"" + path + "\"")
  }

  /// The daemon's socket: `--socket`, else `$LOCD_SOCKET`, else the daemon's default.
  var socketPath: String {
    if let path = value("socket") { return path }
    if let value = CurrentProcess.environment("LOCD_SOCKET"), !value.isEmpty { return value }
    return DaemonConfig().socketPath
  }

  /// Option `name` as a duration with a unit as in locd.conf (`30s`, `1min`, `1h 30min`; a
  /// bare number is seconds), within `range`.
  func duration(_ name: String, in range: ClosedRange<Duration>) throws(UsageError) -> Duration? {
    guard let text = value(name) else { return nil }
    let span: Duration
    do { span = try TimeSpan.parse(text) } catch {
      throw UsageError("--\(name) '\(text)': \(error); write a duration such as 30s, 1min or 1h 30min")
    }
    guard range.contains(span) else {
      throw UsageError(
        "--\(name) '\(text)': must be \(TimeSpan.format(range.lowerBound)) to \(TimeSpan.format(range.upperBound))"
      )
    }
    return span
  }

  /// Option `name` as a distance with a unit as in locd.conf (`50m`, `1km`; a bare number
  /// is metres), within `range`.
  func distance(_ name: String, in range: ClosedRange<Double>) throws(UsageError) -> Meters? {
    guard let text = value(name) else { return nil }
    guard let m = DaemonConfig.parseDistance(text) else {
      throw UsageError("--\(name) '\(text)': not a distance; write metres or kilometres, e.g. 50m or 1.5km")
    }
    guard range.contains(m.value) else {
      throw UsageError(
        "--\(name) '\(text)': must be \(DaemonConfig.formatDistance(Meters(range.lowerBound))) to \(DaemonConfig.formatDistance(Meters(range.upperBound)))"
      )
    }
    return m
  }

  /// Option `name` as a coordinate in any of the forms of `CoordinateText` (locctl(1),
  /// COORDINATES); the parser gave it the next word too when its own held only a latitude.
  func coordinate(_ name: String) throws(UsageError) -> CoordinateText.Reading? {
    guard let text = value(name) else { return nil }
    do { return try CoordinateText.parse(text) } catch { throw UsageError("--\(name) '\(text)': \(error)") }
  }

  /// The positional words as one coordinate (`CoordinateText`), in one word or two: `59.91,10.75`,
  /// `59.91 10.75`, `59°54'50"N 10°45'8"E`, `geo:59.91,10.75;u=35`.
  func positionalCoordinate() throws(UsageError) -> CoordinateText.Reading {
    guard !positionals.isEmpty else { throw UsageError(CoordinateText.Problem.empty.description) }
    let read: (reading: CoordinateText.Reading, words: Int)
    do { read = try CoordinateText.read(positionals) } catch {
      throw UsageError("'\(positionals.prefix(2).joined(separator: " "))': \(error)")
    }
    if read.words < positionals.count {
      throw UsageError("unexpected argument '\(positionals[read.words])' after the coordinate")
    }
    return read.reading
  }

  /// Fails unless there are no positional words.
  func noPositionals() throws(UsageError) {
    if let first = positionals.first { throw UsageError("unexpected argument '\(first)'") }
  }
}

/// Wrong usage, found before anything is done: printed as `locctl COMMAND: message`, exit 2.
struct UsageError: Error, CustomStringConvertible {
  /// What is wrong, naming the word.
  var description: String
  /// An error with `description`.
  init(_ description: String) { self.description = description }
}
