import LocCore

#if canImport(Glibc)
  import Glibc
#endif

/// `replay:PATH?speed=1|N|max&loop=1`: plays a recorded NMEA (or gpsd JSON) log through the
/// decoder, paced by the sentences' own timestamps: each receiver cycle is released when
/// as much time has passed (divided by `speed`) as separates it from the first one. Gaps
/// over `maxGap` and steps backwards (concatenated recordings) count as one second.
public final class ReplaySource: FixSource {
  public let id: SourceID
  let path: String
  let speed: SourceURI.Speed
  let loops: Bool
  let loop: EventLoop
  let sink: SourceSink
  let uri: String

  /// Largest log accepted, so a wrong path (say, a disk image) cannot exhaust memory.
  public static let sizeLimit = 64 << 20
  /// A jump larger than this between cycles is replayed as one second.
  public static let maxGap: Int64 = 10_000_000
  /// Pause before a looped replay starts over, in microseconds.
  public static let loopPause: UInt64 = 1_000_000
  /// Lines fed per loop iteration at `speed=max`, so clients stay served meanwhile.
  static let maxBatch = 256

  /// One receiver cycle: byte ranges of its lines, and its offset from the start.
  struct Cycle {
    var lines: Range<Int>
    var offset: Int64
  }

  var bytes: [UInt8] = []
  var lineRanges: [Range<Int>] = []
  var cycles: [Cycle] = []
  var next = 0
  var startedAt: UInt64 = 0
  var decoder = NMEADecoder(gpsdJSON: true)
  var state: SourceState = .starting
  var lastError: String?
  var timer: Timer?
  var rounds = 0
  /// The decoder counters of the rounds before this one: counters only grow (SOURCES.md).
  var earlier = NMEACounters()

  /// A replay of `path`.
  public init(
    id: SourceID, path: String, speed: SourceURI.Speed, loops: Bool, loop: EventLoop, sink: SourceSink
  ) {
    self.id = id
    self.path = path
    self.speed = speed
    self.loops = loops
    self.loop = loop
    self.sink = sink
    self.uri = SourceURI.replay(path: path, speed: speed, loop: loops).description
  }

  public var snapshot: SourceSnapshot {
    SourceSnapshot(
      id: id, uri: uri, state: state, counters: total.sourceCounters + [Counter("rounds", rounds)],
      lastError: lastError, trust: .system)
  }

  /// The decoder counters of every round so far.
  var total: NMEACounters {
    var t = earlier
    t.add(decoder.counters)
    return t
  }

  public func start() {
    do {
      bytes = try FileIO.read(path: path, limit: ReplaySource.sizeLimit)
    } catch {
      fail("\(path): \(error)")
      return
    }
    index()
    guard !cycles.isEmpty else {
      fail("\(path): no NMEA sentences")
      return
    }
    do {
      timer = try loop.timer(clock: .monotonic, accuracyMicroseconds: 1000) { [weak self] in self?.tick() }
    } catch {
      fail("timer: \(error)")
      return
    }
    beginRound()
  }

  public func stop() {
    timer?.cancel()
    timer = nil
  }

  func fail(_ why: String) {
    state = .failed
    lastError = why
    sink.log(.error, "source \(uri) failed: \(why)")
    sink.update(snapshot, true)
  }

  /// Splits the file into lines and cycles (lines sharing a time of day; untimed lines
  /// join the cycle they follow), and computes each cycle's offset from the first.
  func index() {
    var start = 0
    for i in 0...bytes.count where i == bytes.count || bytes[i] == 0x0A {
      if i > start { lineRanges.append(start..<i) }
      start = i + 1
    }
    cycles = ReplaySource.cycles(of: lineRanges.count) { n in
      self.bytes.withUnsafeBytes { raw in
        var line = UnsafeRawBufferPointer(rebasing: raw[self.lineRanges[n]])
        if line.last == 0x0D { line = UnsafeRawBufferPointer(rebasing: line[0..<(line.count - 1)]) }
        return NMEASentence.timeOfDay(line)?.time.microsecondsSinceMidnight
      }
    }
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
        offset += (step <= 0 || step > maxGap) ? 1_000_000 : step
        start = n
      }
      current = t
    }
    if count > start { result.append(Cycle(lines: start..<count, offset: offset)) }
    return result
  }

  func beginRound() {
    next = 0
    earlier = total
    decoder = NMEADecoder(gpsdJSON: true)
    startedAt = loop.monotonicMicroseconds
    state = .connected
    lastError = nil
    rounds += 1
    sink.log(.info, "source \(uri) replaying (round \(rounds))")
    sink.update(snapshot, true)
    schedule()
  }

  func schedule() {
    guard next < cycles.count else {
      finishRound()
      return
    }
    switch speed {
    case .max:
      loop.soon { [weak self] in self?.tick() }
    case .factor(let f):
      let due = startedAt + UInt64(Double(cycles[next].offset) / f)
      timer?.arm(atMicroseconds: due)
    }
  }

  func tick() {
    guard timer != nil else { return }  // stopped
    if next > cycles.count {
      beginRound()
      return
    }
    var fed = 0
    repeat {
      let cycle = cycles[next]
      for n in cycle.lines {
        var line = Array(bytes[lineRanges[n]])
        line.append(0x0A)
        line.withUnsafeBytes { decoder.feed($0) { fix in sink.fix(fix, id) } }
        fed += 1
      }
      next += 1
    } while speed == .max && next < cycles.count && fed < ReplaySource.maxBatch
    schedule()
  }

  func finishRound() {
    decoder.finish { fix in sink.fix(fix, id) }
    if loops {
      sink.update(snapshot, false)
      startedAt = loop.monotonicMicroseconds
      timer?.arm(atMicroseconds: loop.monotonicMicroseconds + ReplaySource.loopPause)
      next = cycles.count + 1  // marks "between rounds" for tick
      return
    }
    state = .finished
    sink.log(.info, "source \(uri) finished")
    sink.update(snapshot, false)
  }
}
