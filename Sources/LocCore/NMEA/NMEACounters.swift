/// Everything `NMEADecoder` counted, from bytes to fixes. Counters only grow.
public struct NMEACounters: Hashable, Sendable, CustomStringConvertible {
  /// Lines delivered by the framer (NMEA and, when enabled, gpsd JSON).
  public var lines = 0
  /// Sentences checked and decoded (RMC, GGA, GLL, GNS, GSA, GSV, VTG, ZDA, GST).
  public var sentences = 0
  /// Fixes emitted.
  public var fixes = 0
  /// Sentences dropped for a wrong or missing checksum.
  public var badChecksums = 0
  /// Proprietary (`$P...`) and other sentence types locd does not decode; not errors.
  public var skipped = 0
  /// Sentences dropped for a malformed or out-of-range field, and unreadable JSON lines.
  public var errors = 0
  /// Lines over the framer's bound.
  public var overlongLines = 0
  /// Bytes outside any line.
  public var junkBytes = 0
  /// Lines cut off or spoilt by stray bytes.
  public var truncatedLines = 0
  /// A line left open at end of input.
  public var unterminatedLines = 0
  /// `#` comment lines skipped.
  public var comments = 0
  /// Epochs with a time but no date (not emitted).
  public var undatedEpochs = 0
  /// Fixes earlier than the fix before them.
  public var timeWentBackwards = 0
  /// Sentences that arrived after their epoch was emitted.
  public var lateSentences = 0
  /// Fixes moved by 1024-week periods (GPS week rollover).
  public var rolloverCorrections = 0
  /// Fixes more than 512 weeks behind the clock left as they came: moved by 1024-week
  /// periods they would lie in the future (an old log, not the week bug).
  public var rolloverRefused = 0
  /// gpsd JSON reports decoded.
  public var gpsdReports = 0
  /// Fix values dropped for lying outside `FixPlausibility`'s bounds.
  public var implausibleValues = 0

  /// All zero.
  public init() {}

  /// Adds `other`'s counts (a source with several streams, such as accepted connections,
  /// keeps the counts of the streams that ended).
  public mutating func add(_ other: NMEACounters) {
    lines += other.lines
    sentences += other.sentences
    fixes += other.fixes
    badChecksums += other.badChecksums
    skipped += other.skipped
    errors += other.errors
    overlongLines += other.overlongLines
    junkBytes += other.junkBytes
    truncatedLines += other.truncatedLines
    unterminatedLines += other.unterminatedLines
    comments += other.comments
    undatedEpochs += other.undatedEpochs
    timeWentBackwards += other.timeWentBackwards
    lateSentences += other.lateSentences
    rolloverCorrections += other.rolloverCorrections
    rolloverRefused += other.rolloverRefused
    gpsdReports += other.gpsdReports
    implausibleValues += other.implausibleValues
  }

  /// One line: `sentences 1234, fixes 56, bad checksums 0, skipped 12, errors 0, ...`;
  /// the first five always, the others when not zero.
  public var description: String {
    var parts = [
      "sentences \(sentences)", "fixes \(fixes)", "bad checksums \(badChecksums)", "skipped \(skipped)",
      "errors \(errors)",
    ]
    let optional: [(String, Int)] = [
      ("gpsd reports", gpsdReports), ("overlong lines", overlongLines), ("junk bytes", junkBytes),
      ("truncated lines", truncatedLines), ("unterminated lines", unterminatedLines), ("comments", comments),
      ("undated epochs", undatedEpochs), ("time went backwards", timeWentBackwards),
      ("late sentences", lateSentences), ("rollover corrections", rolloverCorrections),
      ("rollovers refused", rolloverRefused),
      ("implausible values", implausibleValues),
    ]
    for (name, value) in optional where value != 0 { parts.append("\(name) \(value)") }
    return parts.joined(separator: ", ")
  }
}
