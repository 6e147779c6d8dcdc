import LocCore

/// `replay:PATH?speed=1|N|max&loop=1`: plays a recorded NMEA (or gpsd JSON) log through the
/// decoder, paced by the sentences' own timestamps: each receiver cycle is released when
/// as much time has passed (divided by `speed`) as separates it from the first one. Gaps
/// over `maxGap` and steps backwards (concatenated recordings) count as one second.
///
/// The recording is a `ReplayTape`, its pacing a `ReplayPace` (shared with the beacon
/// replay), its rounds `ReplayRounds`. A looped replay starts each round as a new stream (`restarted`, so acceptance starts
/// over) whose fix times are moved forward by whole days (`roundShift`): round 2 plays the
/// recording one day later than round 1, and so on, so a replay's time never goes back and
/// daily timers fire again every round. `pause()` holds it (flow control) and `resume()`
/// goes on where it stopped, the pacing moved by the time paused.
public final class ReplaySource: FixSource, PacedPlayback {
  public let id: SourceID
  let path: String
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

  /// The recording, indexed, and the cycle to play next.
  var tape = ReplayTape(bytes: [])
  /// The speed, the round's start, and flow control's hold.
  var pace: ReplayPace
  /// Rounds so far, their day shift and their counters.
  var rounds: ReplayRounds
  var decoder = NMEADecoder(gpsdJSON: true)
  /// Whether the decoder assembles skies (`setSkiesWanted`); each round's decoder is told.
  var state: SourceState = .starting
  var lastError: String?
  var timer: Timer?

  /// One day in microseconds.
  static let day: Int64 = 86_400_000_000

  /// A replay of `path`.
  public init(
    id: SourceID, path: String, speed: SourceURI.Speed, loops: Bool, loop: EventLoop, sink: SourceSink
  ) {
    self.id = id
    self.path = path
    self.pace = ReplayPace(speed: speed)
    self.rounds = ReplayRounds(loops: loops)
    self.loop = loop
    self.sink = sink
    self.uri = SourceURI.replay(path: path, speed: speed, loop: loops).description
  }

  /// Whether flow control holds it now.
  public var isPaused: Bool { pace.isHeld }

  /// Holds the replay after the receiver cycle being fed (flow control: a client's queue is
  /// full); nothing more is fed until `resume()`.
  public func pause() {
    _ = pace.hold(at: loop.monotonicMicroseconds)
  }

  /// Goes on after `pause()`, on the next loop iteration, with the pacing moved by the time
  /// paused (so `speed=N` keeps its rate rather than catching up).
  public func resume() {
    if pace.release(at: loop.monotonicMicroseconds) {
      loop.soon { [weak self] in
        guard let self, self.timer != nil, !self.isPaused else { return }
        self.schedule()
      }
    }
  }

  public var snapshot: SourceSnapshot {
    SourceSnapshot(
      id: id, uri: uri, state: state, counters: total.sourceCounters + [Counter("rounds", rounds.count)],
      lastError: lastError, trust: .system)
  }

  /// The decoder counters of every round so far.
  var total: NMEACounters { rounds.total(with: decoder.counters) }

  public func start() {
    do {
      tape = ReplayTape(bytes: try FileIO.read(path: path, limit: ReplaySource.sizeLimit))
    } catch {
      fail("\(path): \(error)")
      return
    }
    guard let last = tape.cycles.last else {
      fail("\(path): no NMEA sentences")
      return
    }
    rounds.shiftPerRound = ReplaySource.roundShift(span: last.offset)
    startPlaying()
  }

  public func stop() { stopPlaying() }

  public func setSkiesWanted(_ wanted: Bool) {
    decoder.assemblesSkies = wanted
  }

  /// Whole days, at least one, covering a round of `span` microseconds and the pause after it.
  static func roundShift(span: Int64) -> Int64 {
    let length = span + Int64(loopPause)
    return max(1, (length + day - 1) / day) * day
  }

  /// Hands a decoded fix on, moved to its round's day.
  func emit(_ fix: Fix) {
    sink.fix(rounds.shifted(fix), id, nil, nil)
  }

  func beginRound() {
    tape.next = 0
    rounds.begin(after: decoder.counters)
    decoder = NMEADecoder(gpsdJSON: true)
    decoder.assemblesSkies = sink.now.skiesWanted()
    pace.start(at: loop.monotonicMicroseconds)
    state = .connected
    lastError = nil
    sink.log(.info, "source \(uri) replaying (round \(rounds.count))")
    sink.update(snapshot, true)
    schedule()
  }

  func schedule() {
    if tape.next > tape.cycles.count {  // between rounds: the pause before the next
      timer?.arm(atMicroseconds: pace.after(ReplaySource.loopPause))
      return
    }
    guard tape.next < tape.cycles.count else {
      finishRound()
      return
    }
    if let due = pace.due(offset: tape.cycles[tape.next].offset) {
      timer?.arm(atMicroseconds: due)
    } else {
      // speed=max, below clients and other sources: a request locd has read is served
      // before the simulated clock moves on by another batch.
      loop.soon(priority: .idle) { [weak self] in self?.tick() }
    }
  }

  func tick() {
    guard timer != nil else { return }  // stopped
    guard !pace.isHeld else {
      pace.missed()
      return
    }
    if tape.next > tape.cycles.count {
      beginRound()
      return
    }
    var fed = 0
    repeat {
      let cycle = tape.cycles[tape.next]
      for n in cycle.lines {
        let skies = decoder.skyCount
        var fixes: [Fix] = []
        tape.line(n).withUnsafeBytes { line in
          sink.sentence(line, id)
          decoder.feed(line) { fix in fixes.append(fix) }
        }
        // The cycle's sky before its fix, as a live decoder hands them on (`LiveDecoder`).
        emitSky(after: skies)
        for fix in fixes { emit(fix) }
        fed += 1
      }
      tape.next += 1
    } while pace.speed == .max && tape.next < tape.cycles.count && fed < ReplaySource.maxBatch && !pace.isHeld
    if pace.isHeld {
      pace.missed()
      return
    }
    schedule()
  }

  /// Hands the decoder's sky on when it changed since its count was `count`.
  func emitSky(after count: Int) {
    if decoder.skyCount != count, let sky = decoder.sky { sink.sky(sky, id) }
  }

  func finishRound() {
    let skies = decoder.skyCount
    var fixes: [Fix] = []
    decoder.finish { fix in fixes.append(fix) }
    emitSky(after: skies)
    for fix in fixes { emit(fix) }
    if rounds.loops {
      sink.update(snapshot, false)
      pace.start(at: loop.monotonicMicroseconds)
      tape.next = tape.cycles.count + 1  // marks "between rounds" for tick
      schedule()
      return
    }
    state = .finished
    sink.log(.info, "source \(uri) finished")
    sink.update(snapshot, false)
  }
}
