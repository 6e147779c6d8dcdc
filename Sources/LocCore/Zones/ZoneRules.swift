/// The rules of one IANA time zone, read from TZif bytes (RFC 8536, versions 1 to 4): which
/// offset, abbreviation and daylight flag apply at any instant, and the reverse questions
/// (which instants show a given wall time, where a local day starts).
///
/// Instants after the last listed transition follow the POSIX TZ footer, so "slim" files
/// (which list transitions only until the rule takes over) give the same answers as "fat" ones.
public struct ZoneRules: Sendable {
  /// The zone's name as it was loaded, e.g. "Europe/Oslo".
  public let name: String
  /// Transition instants in seconds since the Unix epoch, ascending.
  private let transitionSeconds: [Int64]
  /// For each transition, the index into `types` of the type that starts there.
  private let transitionTypes: [UInt8]
  /// The local time types; `types[0]` applies before the first transition (RFC 8536 §3.2).
  private let types: [LocalTimeType]
  /// The rule after the last transition, if the file has one.
  public let footer: PosixTZRule?

  /// A change of local time type.
  public struct Transition: Hashable, Sendable {
    /// The first instant of the new type.
    public var instant: Instant
    /// The type just before.
    public var before: LocalTimeType
    /// The type from `instant` on.
    public var after: LocalTimeType
  }

  /// Why bytes are not usable TZif data.
  public enum ParseError: Error, Hashable, Sendable {
    /// The bytes do not start with "TZif".
    case notTZif
    /// The data ends before the counts in its header say it should.
    case truncated
    /// A count, index or value is out of range; the text says which.
    case invalid(String)
    /// The file counts leap seconds ("right/" zones); locd's instants are POSIX time.
    case leapSeconds
  }

  /// Reads TZif bytes. The name is only carried along.
  public init(name: String, tzif bytes: [UInt8]) throws(ParseError) {
    self.name = name
    var reader = Reader(bytes: bytes)
    let first = try reader.header()
    var header = first
    var timeSize = 4
    if first.version >= 2 {
      // Skip the version-1 block: the 64-bit block after it is complete (RFC 8536 §3).
      try reader.skip(first.dataLength(timeSize: 4))
      header = try reader.header()
      timeSize = 8
    }
    guard header.typeCount >= 1, header.charCount >= 1 else { throw .invalid("no local time type") }
    guard header.isStdCount == 0 || header.isStdCount == header.typeCount,
      header.isUTCCount == 0 || header.isUTCCount == header.typeCount
    else { throw .invalid("indicator counts") }
    guard header.leapCount == 0 else { throw .leapSeconds }

    var times: [Int64] = []
    times.reserveCapacity(header.timeCount)
    for _ in 0..<header.timeCount {
      let t = timeSize == 8 ? try reader.int64() : Int64(try reader.int32())
      if let last = times.last, t <= last { throw .invalid("transition times not ascending") }
      times.append(t)
    }
    var indices: [UInt8] = []
    indices.reserveCapacity(header.timeCount)
    for _ in 0..<header.timeCount {
      let index = try reader.uint8()
      guard Int(index) < header.typeCount else { throw .invalid("transition type index") }
      indices.append(index)
    }
    var raw: [(offset: Int32, isDST: Bool, abbreviationIndex: Int)] = []
    for _ in 0..<header.typeCount {
      let offset = try reader.int32()
      let isDST = try reader.uint8()
      let abbreviationIndex = Int(try reader.uint8())
      // RFC 8536 §3.2: -2^31 is not allowed; 0/1 only for the flag.
      guard offset != Int32.min, isDST <= 1, abbreviationIndex < header.charCount else {
        throw .invalid("local time type")
      }
      raw.append((offset, isDST == 1, abbreviationIndex))
    }
    let chars = Array(try reader.take(header.charCount))
    types = raw.map { entry in
      var end = entry.abbreviationIndex
      while end < chars.count, chars[end] != 0 { end += 1 }
      let abbreviation = String(decoding: chars[entry.abbreviationIndex..<end], as: UTF8.self)
      return LocalTimeType(
        utcOffsetSeconds: Int(entry.offset), isDaylightSaving: entry.isDST, abbreviation: abbreviation)
    }
    try reader.skip(header.isStdCount + header.isUTCCount)

    var footer: PosixTZRule? = nil
    if first.version >= 2 {
      // Footer: "\n" TZ-string "\n" (RFC 8536 §3.3); an empty string means "unspecified".
      guard try reader.uint8() == UInt8(ascii: "\n") else { throw .invalid("footer") }
      let text = try reader.takeLine()
      if !text.isEmpty {
        guard let rule = PosixTZRule(String(decoding: text, as: UTF8.self)) else {
          throw .invalid("footer TZ string")
        }
        footer = rule
      }
    }
    transitionSeconds = times
    transitionTypes = indices
    self.footer = footer
  }

  /// Rules from a POSIX TZ string alone (e.g. `$TZ="CET-1CEST,M3.5.0,M10.5.0/3"`);
  /// `nil` when the string is not valid.
  public init?(name: String, posix: String) {
    guard let rule = PosixTZRule(posix) else { return nil }
    self.name = name
    transitionSeconds = []
    transitionTypes = []
    types = [rule.standard]
    footer = rule
  }

  /// Rules for a zone that is always at one offset (e.g. UTC).
  public init(name: String, fixed type: LocalTimeType) {
    self.name = name
    transitionSeconds = []
    transitionTypes = []
    types = [type]
    footer = nil
  }

  /// UTC.
  public static let utc = ZoneRules(
    name: "UTC", fixed: LocalTimeType(utcOffsetSeconds: 0, isDaylightSaving: false, abbreviation: "UTC"))

  // MARK: Instant to local

  /// The local time type (offset, daylight flag, abbreviation) in effect at `instant`.
  public func localTimeType(at instant: Instant) -> LocalTimeType {
    localTimeType(atSecond: ZoneRules.floorSeconds(instant))
  }

  /// The offset from UTC in seconds at `instant` (east positive).
  public func utcOffsetSeconds(at instant: Instant) -> Int { localTimeType(at: instant).utcOffsetSeconds }

  /// The abbreviation at `instant`, e.g. "CEST".
  public func abbreviation(at instant: Instant) -> String { localTimeType(at: instant).abbreviation }

  /// Whether daylight-saving time is in effect at `instant`.
  public func isDaylightSaving(at instant: Instant) -> Bool { localTimeType(at: instant).isDaylightSaving }

  /// The wall-clock date and time at `instant`.
  public func localDateTime(at instant: Instant) -> LocalDateTime {
    let offset = Int64(utcOffsetSeconds(at: instant))
    return LocalDateTime(microsecondsSinceLocalEpoch: instant.microsecondsSinceEpoch + offset * 1_000_000)
  }

  /// The local calendar date at `instant`.
  public func localDate(at instant: Instant) -> CivilDate { localDateTime(at: instant).date }

  /// The first change of local time type strictly after `instant`, or `nil` if there is none
  /// (a fixed-offset zone, or a zone whose rules have no more changes).
  public func nextTransition(after instant: Instant) -> Transition? {
    guard let (second, index) = nextChange(afterSecond: ZoneRules.floorSeconds(instant)) else { return nil }
    let before = localTimeType(atSecond: second - 1)
    return Transition(
      instant: Instant(microsecondsSinceEpoch: second * 1_000_000), before: before, after: index)
  }

  // MARK: Local to instant

  /// The instants at which the wall clock shows `local`: one normally, none in a gap (clocks
  /// jumped over it), two in a fold (clocks went back over it), earlier first.
  public func instants(at local: LocalDateTime) -> [Instant] {
    let l = local.microsecondsSinceLocalEpoch
    var out: [Instant] = []
    forEachSegment(aroundLocalMicroseconds: l) { start, end, offset in
      let t = l - offset
      if t >= start, t < end { out.append(Instant(microsecondsSinceEpoch: t)) }
      return false
    }
    return out
  }

  /// The first instant whose local date is `date` or later: local midnight, unless the clocks
  /// jump over midnight (e.g. Africa/Cairo 2024-04-26 starts at 01:00); a day the zone
  /// skipped entirely (Pacific/Apia 2011-12-30) starts where the next day starts.
  public func startOfDay(_ date: CivilDate) -> Instant {
    let l = LocalDateTime(midnightOf: date).microsecondsSinceLocalEpoch
    var best = Int64.max
    forEachSegment(aroundLocalMicroseconds: l) { start, end, offset in
      // Within a segment local time is t + offset, increasing: the first t with local >= l.
      let t = max(start, l - offset)
      if t < end { best = min(best, t) }
      return best != Int64.max
    }
    return Instant(microsecondsSinceEpoch: best)
  }

  /// The local day `date` as a half-open interval of instants [start, next day's start).
  public func localDay(_ date: CivilDate) -> Range<Instant> {
    let start = startOfDay(date)
    return start..<max(start, startOfDay(date.adding(days: 1)))
  }

  // MARK: Internals

  /// Calls `body(start, end, offset)` in microseconds for each period of constant offset that
  /// overlaps the instants within two days of the local time `l` (offsets are far below a day),
  /// in order, until `body` returns true.
  private func forEachSegment(
    aroundLocalMicroseconds l: Int64, _ body: (Int64, Int64, Int64) -> Bool
  ) {
    let window: Int64 = 2 * 86_400
    let lo = (l / 1_000_000) - window
    let hi = (l / 1_000_000) + window
    var start = lo
    var type = localTimeType(atSecond: lo)
    while start <= hi {
      let next = nextChange(afterSecond: start)
      let end = next.map { $0.second } ?? Int64.max / 1_000_000
      if body(start * 1_000_000, end * 1_000_000, Int64(type.utcOffsetSeconds) * 1_000_000) { return }
      guard let next else { return }
      start = next.second
      type = next.type
    }
  }

  /// The type at `second`, from the table or, past its end, from the footer.
  private func localTimeType(atSecond second: Int64) -> LocalTimeType {
    guard let last = transitionSeconds.last else {
      return footer?.localTimeType(atSecond: second) ?? types[0]
    }
    if second >= last, let footer { return footer.localTimeType(atSecond: second) }
    // The last transition at or before `second` (binary search).
    var lo = 0
    var hi = transitionSeconds.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if transitionSeconds[mid] <= second { lo = mid + 1 } else { hi = mid }
    }
    return lo == 0 ? types[0] : types[Int(transitionTypes[lo - 1])]
  }

  /// The first instant after `second` where the type differs from the one before it.
  private func nextChange(afterSecond second: Int64) -> (second: Int64, type: LocalTimeType)? {
    var current = localTimeType(atSecond: second)
    var lo = 0
    var hi = transitionSeconds.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if transitionSeconds[mid] <= second { lo = mid + 1 } else { hi = mid }
    }
    var i = lo
    while i < transitionSeconds.count {
      let type = types[Int(transitionTypes[i])]
      // The last listed transition hands over to the footer, which may differ from its type.
      let effective =
        (i == transitionSeconds.count - 1 && footer != nil)
        ? localTimeType(atSecond: transitionSeconds[i]) : type
      if effective != current { return (transitionSeconds[i], effective) }
      current = effective
      i += 1
    }
    guard let footer else { return nil }
    var from = max(second, (transitionSeconds.last ?? second))
    // Skip footer changes that do not change anything visible from the table's last type.
    while let change = footer.nextTransition(afterSecond: from) {
      if change.type != current { return change }
      current = change.type
      from = change.second
    }
    return nil
  }

  /// Whole seconds of an instant, rounded toward minus infinity.
  private static func floorSeconds(_ instant: Instant) -> Int64 {
    let us = instant.microsecondsSinceEpoch
    return us >= 0 ? us / 1_000_000 : -((-us + 999_999) / 1_000_000)
  }

  /// `bytes` with an empty version-1 data block, when the file also has the version 2+
  /// block that readers use (as `zic -b slim` writes it: the first header's counts all zero,
  /// then the 64-bit header, data and footer unchanged); otherwise `bytes` as they are. A
  /// fat file's 32-bit block is a third of it, and the daemon keeps every zone its boundary
  /// data names (476 KB of Debian's tzdata, 317 KB slimmed).
  public static func withoutVersion1Data(_ bytes: [UInt8]) -> [UInt8] {
    var reader = Reader(bytes: bytes)
    guard let first = try? reader.header(), first.version >= 2 else { return bytes }
    let length = first.dataLength(timeSize: 4)
    guard length > 0, bytes.count - 44 >= length else { return bytes }
    var slim = [UInt8]()
    slim.reserveCapacity(bytes.count - length)
    slim += bytes[0..<20]
    slim += repeatElement(0, count: 24)
    slim += bytes[(44 + length)...]
    return slim
  }

  /// A bounds-checked big-endian cursor over TZif bytes.
  private struct Reader {
    var bytes: [UInt8]
    var index = 0

    struct Header {
      var version: Int
      var isUTCCount, isStdCount, leapCount, timeCount, typeCount, charCount: Int

      /// Bytes of the data block that follows this header (RFC 8536 §3.2).
      func dataLength(timeSize: Int) -> Int {
        timeCount * timeSize + timeCount + typeCount * 6 + charCount + leapCount * (timeSize + 4)
          + isStdCount + isUTCCount
      }
    }

    mutating func header() throws(ParseError) -> Header {
      guard bytes.count - index >= 44 else { throw index == 0 ? .notTZif : .truncated }
      guard bytes[index..<index + 4].elementsEqual("TZif".utf8) else { throw .notTZif }
      let versionByte = bytes[index + 4]
      let version: Int
      switch versionByte {
      case 0: version = 1
      case UInt8(ascii: "2"): version = 2
      case UInt8(ascii: "3"): version = 3
      case UInt8(ascii: "4"): version = 4
      default:
        // RFC 8536 §3.1: readers should accept later versions, which stay compatible.
        guard versionByte > UInt8(ascii: "4"), versionByte <= UInt8(ascii: "9") else {
          throw .invalid("version")
        }
        version = Int(versionByte - UInt8(ascii: "0"))
      }
      index += 20
      var counts: [Int] = []
      for _ in 0..<6 {
        let c = try int32()
        guard c >= 0 else { throw .invalid("negative count") }
        counts.append(Int(c))
      }
      let header = Header(
        version: version, isUTCCount: counts[0], isStdCount: counts[1], leapCount: counts[2],
        timeCount: counts[3], typeCount: counts[4], charCount: counts[5])
      // A type index is one byte (RFC 8536 §3.2: typecnt at most 256).
      guard header.typeCount <= 256 else { throw .invalid("type count") }
      guard header.dataLength(timeSize: 8) <= bytes.count else { throw .truncated }
      return header
    }

    mutating func skip(_ n: Int) throws(ParseError) {
      guard n >= 0, bytes.count - index >= n else { throw .truncated }
      index += n
    }

    mutating func take(_ n: Int) throws(ParseError) -> ArraySlice<UInt8> {
      guard n >= 0, bytes.count - index >= n else { throw .truncated }
      defer { index += n }
      return bytes[index..<index + n]
    }

    mutating func uint8() throws(ParseError) -> UInt8 {
      guard index < bytes.count else { throw .truncated }
      defer { index += 1 }
      return bytes[index]
    }

    mutating func int32() throws(ParseError) -> Int32 {
      var v: UInt32 = 0
      for b in try take(4) { v = v << 8 | UInt32(b) }
      return Int32(bitPattern: v)
    }

    mutating func int64() throws(ParseError) -> Int64 {
      var v: UInt64 = 0
      for b in try take(8) { v = v << 8 | UInt64(b) }
      return Int64(bitPattern: v)
    }

    /// Bytes up to the next newline, which is consumed; the line must end with one.
    mutating func takeLine() throws(ParseError) -> ArraySlice<UInt8> {
      var end = index
      while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
      guard end < bytes.count else { throw .invalid("footer not terminated") }
      defer { index = end + 1 }
      return bytes[index..<end]
    }
  }
}
