import LocCore

/// `replay:PATH.btsnoop?speed=1|N|max&loop=1`: plays the beacon advertisements of an HCI
/// capture (what `btmon -w` and Android's HCI snoop log write), paced by the capture's own
/// timestamps: each advertisement is released when as much time has passed (divided by
/// `speed`) as separates it from the first. With `locd --clock replay` the capture's times
/// are the engine's clock. Advertisements are never logged above debug (docs/PRIVACY.md).
public final class BeaconReplaySource: FixSource, PacedPlayback {
  public let id: SourceID
  let path: String
  /// The speed and the round's start (`ReplayPace`, as the NMEA replay's).
  var pace: ReplayPace
  let loops: Bool
  let loop: EventLoop
  let sink: SourceSink
  let uri: String

  /// Largest capture accepted, as for NMEA replays.
  public static let sizeLimit = ReplaySource.sizeLimit
  /// Advertisements fed per loop iteration at `speed=max`, so clients stay served meanwhile.
  static let maxBatch = 256
  /// A step backwards between advertisements (concatenated captures) counts as none.
  static let pauseBeforeLoop: UInt64 = 1_000_000

  var advertisements: [BeaconAdvertisement] = []
  var counters = BeaconCaptureDecoder.Counters()
  var next = 0
  var played = 0
  var rounds = 0
  var state: SourceState = .starting
  var lastError: String?
  var timer: Timer?

  /// A replay of the capture at `path`.
  public init(
    id: SourceID, path: String, speed: SourceURI.Speed, loops: Bool, loop: EventLoop, sink: SourceSink
  ) {
    self.id = id
    self.path = path
    self.pace = ReplayPace(speed: speed)
    self.loops = loops
    self.loop = loop
    self.sink = sink
    self.uri = SourceURI.beaconReplay(path: path, speed: speed, loop: loops).description
  }

  public var snapshot: SourceSnapshot {
    let c = counters
    return SourceSnapshot(
      id: id, uri: uri, state: state,
      counters: [
        Counter("records", c.capture.records), Counter("reports", c.reports), Counter("ibeacon", c.iBeacons),
        Counter("altbeacon", c.altBeacons), Counter("other", c.otherAdvertisements),
        Counter("implausiblePower", c.implausiblePower), Counter("advertisements", played),
        Counter("rounds", rounds),
      ], lastError: lastError, givesFixes: false)
  }

  public func start() {
    let bytes: [UInt8]
    do {
      bytes = try FileIO.read(path: path, limit: BeaconReplaySource.sizeLimit)
    } catch {
      fail("\(path): \(error)")
      return
    }
    var decoder = BeaconCaptureDecoder()
    var found: [BeaconAdvertisement] = []
    bytes.withUnsafeBytes { raw in decoder.feed(raw) { found.append($0) } }
    decoder.finish()
    counters = decoder.counters
    advertisements = found
    if let failure = decoder.failure {
      guard !found.isEmpty else {
        fail("\(path): \(failure)")
        return
      }
      lastError = "\(failure)"
      sink.log(.warning, "source \(uri): \(failure); playing the \(found.count) advertisements before it")
    }
    guard !advertisements.isEmpty else {
      fail("\(path): no beacon advertisements (\(counters))")
      return
    }
    startPlaying()
  }

  public func stop() { stopPlaying() }

  /// Microseconds from the first advertisement to advertisement `n` (never negative).
  func offset(_ n: Int) -> Int64 {
    max(0, advertisements[n].time.microsecondsSinceEpoch - advertisements[0].time.microsecondsSinceEpoch)
  }

  func beginRound() {
    next = 0
    pace.start(at: loop.monotonicMicroseconds)
    state = .connected
    rounds += 1
    sink.log(.info, "source \(uri) replaying \(advertisements.count) beacon advertisements (round \(rounds))")
    sink.update(snapshot, true)
    schedule()
  }

  func schedule() {
    guard next < advertisements.count else {
      finishRound()
      return
    }
    if let due = pace.due(offset: offset(next)) {
      timer?.arm(atMicroseconds: due)
    } else {
      loop.soon { [weak self] in self?.tick() }
    }
  }

  func tick() {
    guard timer != nil else { return }  // stopped
    if next > advertisements.count {
      beginRound()
      return
    }
    let now = loop.monotonicMicroseconds
    var fed = 0
    repeat {
      sink.beacon(advertisements[next], id)
      next += 1
      played += 1
      fed += 1
      if next < advertisements.count, let due = pace.due(offset: offset(next)), due > now { break }
    } while next < advertisements.count && fed < BeaconReplaySource.maxBatch
    schedule()
  }

  func finishRound() {
    if loops {
      sink.update(snapshot, false)
      timer?.arm(atMicroseconds: loop.monotonicMicroseconds + BeaconReplaySource.pauseBeforeLoop)
      next = advertisements.count + 1  // marks "between rounds" for tick
      return
    }
    state = .finished
    sink.log(.info, "source \(uri) finished")
    sink.update(snapshot, false)
  }
}
