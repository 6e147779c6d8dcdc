import LocCore

/// `replay:PATH?speed=1|N|max&loop=1`: plays a recorded NMEA (or gpsd JSON) log through the
/// decoder, paced by the sentences' own timestamps: each receiver cycle is released when
/// as much time has passed (divided by `speed`) as separates it from the first one. Gaps
/// over `maxGap` and steps backwards (concatenated recordings) count as one second.
///
/// A looped replay starts each round as a new stream (`restarted`, so acceptance starts
/// over) whose fix times are moved forward by whole days (`roundShift`): round 2 plays the
/// recording one day later than round 1, and so on, so a replay's time never goes back and
/// daily timers fire again every round. `pause()` holds it (flow control) and `resume()`
/// goes on where it stopped, the pacing moved by the time paused.
public final class ReplaySource: FixSource, PacedPlayback {
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
  /// How far each round's fix times move past the round before (whole days).
  var roundShift: Int64 = ReplaySource.day
  /// Held by flow control since this monotonic instant.
  var pausedAt: UInt64?
  /// A tick came while paused; `resume()` makes up for it.
  var missedTick = false

  /// One day in microseconds.
  static let day: Int64 = 86_400_000_000

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

  /// Whether flow control holds it now.
  public var isPaused: Bool { pausedAt != nil }

  /// Holds the replay after the receiver cycle being fed (flow control: a client's queue is
  /// full); nothing more is fed until `resume()`.
  public func pause() {
    guard pausedAt == nil else { return }
    pausedAt = loop.monotonicMicroseconds
  }

  /// Goes on after `pause()`, on the next loop iteration, with the pacing moved by the time
  /// paused (so `speed=N` keeps its rate rather than catching up).
  public func resume() {
    guard let since = pausedAt else { return }
    pausedAt = nil
    startedAt += loop.monotonicMicroseconds - since
    if missedTick {
      missedTick = false
      loop.soon { [weak self] in
        guard let self, self.timer != nil, !self.isPaused else { return }
        self.schedule()
      }
    }
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
    guard let last = cycles.last else {
      fail("\(path): no NMEA sentences")
      return
    }
    roundShift = ReplaySource.roundShift(span: last.offset)
    startPlaying()
  }

  public func stop() { stopPlaying() }

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

  /// Whole days, at least one, covering a round of `span` microseconds and the pause after it.
  static func roundShift(span: Int64) -> Int64 {
    let length = span + Int64(loopPause)
    return max(1, (length + day - 1) / day) * day
  }

  /// Hands a decoded fix on, moved to its round's day.
  func emit(_ fix: Fix) {
    var fix = fix
    if rounds > 1 { fix.time = Instant(microsecondsSinceEpoch: fix.time.microsecondsSinceEpoch + shift) }
    sink.fix(fix, id)
  }

  /// How far this round's fix times are moved.
  var shift: Int64 { Int64(rounds - 1) * roundShift }

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
    if next > cycles.count {  // between rounds: the pause before the next
      timer?.arm(atMicroseconds: startedAt + ReplaySource.loopPause)
      return
    }
    guard next < cycles.count else {
      finishRound()
      return
    }
    switch speed {
    case .max:
      // Below clients and other sources: a request locd has read is served before the
      // simulated clock moves on by another batch.
      loop.soon(priority: .idle) { [weak self] in self?.tick() }
    case .factor(let f):
      let due = startedAt + UInt64(Double(cycles[next].offset) / f)
      timer?.arm(atMicroseconds: due)
    }
  }

  func tick() {
    guard timer != nil else { return }  // stopped
    guard pausedAt == nil else {
      missedTick = true
      return
    }
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
        line.withUnsafeBytes { decoder.feed($0) { fix in emit(fix) } }
        fed += 1
      }
      next += 1
    } while speed == .max && next < cycles.count && fed < ReplaySource.maxBatch && pausedAt == nil
    if pausedAt != nil {
      missedTick = true
      return
    }
    schedule()
  }

  func finishRound() {
    decoder.finish { fix in emit(fix) }
    if loops {
      sink.update(snapshot, false)
      startedAt = loop.monotonicMicroseconds
      next = cycles.count + 1  // marks "between rounds" for tick
      schedule()
      return
    }
    state = .finished
    sink.log(.info, "source \(uri) finished")
    sink.update(snapshot, false)
  }
}
