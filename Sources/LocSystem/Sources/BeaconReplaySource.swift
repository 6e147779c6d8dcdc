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

  /// The advertisements, the one to play next, the rounds.
  var tape = BeaconTape()
  var counters = BeaconCaptureDecoder.Counters()
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
        Counter("implausiblePower", c.implausiblePower), Counter("advertisements", tape.played),
        Counter("rounds", tape.rounds),
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
    tape.load(found)
    if let failure = decoder.failure {
      guard !found.isEmpty else {
        fail("\(path): \(failure)")
        return
      }
      lastError = "\(failure)"
      sink.log(.warning, "source \(uri): \(failure); playing the \(found.count) advertisements before it")
    }
    guard !tape.advertisements.isEmpty else {
      fail("\(path): no beacon advertisements (\(counters))")
      return
    }
    startPlaying()
  }

  public func stop() { stopPlaying() }

  func beginRound() {
    tape.beginRound()
    pace.start(at: loop.monotonicMicroseconds)
    state = .connected
    sink.log(
      .info,
      "source \(uri) replaying \(tape.advertisements.count) beacon advertisements (round \(tape.rounds))")
    sink.update(snapshot, true)
    schedule()
  }

  func schedule() {
    guard let offset = tape.nextOffset else {
      finishRound()
      return
    }
    if let due = pace.due(offset: offset) {
      timer?.arm(atMicroseconds: due)
    } else {
      loop.soon { [weak self] in self?.tick() }
    }
  }

  func tick() {
    guard timer != nil else { return }  // stopped
    if tape.betweenRounds {
      beginRound()
      return
    }
    let now = loop.monotonicMicroseconds
    var fed = 0
    repeat {
      sink.beacon(tape.take(), id)
      fed += 1
      if let offset = tape.nextOffset, let due = pace.due(offset: offset), due > now { break }
    } while !tape.roundPlayed && fed < BeaconReplaySource.maxBatch
    schedule()
  }

  func finishRound() {
    if loops {
      sink.update(snapshot, false)
      timer?.arm(atMicroseconds: loop.monotonicMicroseconds + BeaconReplaySource.pauseBeforeLoop)
      tape.pause()
      return
    }
    state = .finished
    sink.log(.info, "source \(uri) finished")
    sink.update(snapshot, false)
  }
}
