import LocCore

/// A recorded NMEA or gpsd log for `ReplaySource`, read whole and indexed: its lines,
/// grouped into receiver cycles (lines sharing a time of day; untimed lines join the cycle
/// they follow) with each cycle's offset from the first, and the cycle to play next. Gaps
/// over `ReplaySource.maxGap` and steps backwards (concatenated recordings) count as one
/// second.
struct ReplayTape {
  /// One receiver cycle: the indices of its lines, and its offset from the start.
  struct Cycle {
    var lines: Range<Int>
    var offset: Int64
  }

  private let bytes: [UInt8]
  private var lineRanges: [Range<Int>] = []
  /// The recording's cycles, in order.
  private(set) var cycles: [Cycle] = []
  /// The cycle to play next; past `cycles.count` between rounds.
  var next = 0

  /// The log `bytes`, indexed.
  init(bytes: [UInt8]) {
    self.bytes = bytes
    var start = 0
    for i in 0...bytes.count where i == bytes.count || bytes[i] == 0x0A {
      if i > start { lineRanges.append(start..<i) }
      start = i + 1
    }
    cycles = ReplayTape.cycles(of: lineRanges.count) { n in
      var line = bytes[lineRanges[n]]
      if line.last == 0x0D { line = line.dropLast() }
      return line.withUnsafeBytes { NMEASentence.timeOfDay($0)?.time.microsecondsSinceMidnight }
    }
  }

  /// Line `n`, with its line end.
  func line(_ n: Int) -> [UInt8] {
    var line = Array(bytes[lineRanges[n]])
    line.append(0x0A)
    return line
  }

  /// Groups `count` lines into cycles by their time of day (`time(n)`, nil for untimed
  /// lines), with offsets in microseconds from the first cycle.
  static func cycles(of count: Int, time: (Int) -> Int64?) -> [Cycle] {
    var result: [Cycle] = []
    var start = 0
    var current: Int64? = nil
    var offset: Int64 = 0
    for n in 0..<count {
      guard let t = time(n), t != current else { continue }
      if let previous = current {
        result.append(Cycle(lines: start..<n, offset: offset))
        var step = t - previous
        if step < -TimeOfDay.microsecondsPerDay / 2 { step += TimeOfDay.microsecondsPerDay }  // past midnight
        offset += (step <= 0 || step > ReplaySource.maxGap) ? 1_000_000 : step
        start = n
      }
      current = t
    }
    if count > start { result.append(Cycle(lines: start..<count, offset: offset)) }
    return result
  }
}
