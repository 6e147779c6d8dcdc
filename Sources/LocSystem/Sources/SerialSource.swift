import LocCore

/// `serial:/dev/ttyUSB0?baud=auto|N`: a receiver on a serial line (USB or UART), read in
/// raw mode (`SerialPort`). With `baud=auto` each of `SourceURI.autoBaudRates` is tried for
/// `BaudHunt.probeMicroseconds` until the decoder sees valid checksummed sentences. When the
/// device goes away (unplugged: a read error or end of file) it is closed and opened again
/// every `reopenMicroseconds` until it is back, at the speed that worked last; a missing
/// device at start is waited for the same way. The path may be a udev symlink
/// (/dev/serial/by-id/...), which is what survives replugging into another port. While
/// acquisition is idle the device is closed (state `idle`; many USB receivers and serial
/// power controls sleep without DTR) and opened again when fixes are wanted.
public final class SerialSource: FixSource {
  /// Time between attempts to open a missing device.
  public static let reopenMicroseconds: UInt64 = 2_000_000

  public let id: SourceID
  let uri: String
  let loop: EventLoop
  let sink: SourceSink
  private var live: LiveDecoder!
  /// The line's speed: fixed, or hunted.
  private var speed: SerialSpeed
  /// The device, open or not.
  private let device: SerialDevice
  private var timer: Timer?
  /// The opens, losses and bytes, and whether opening is failing.
  private var openings = DeviceOpenings()
  private var active = true
  private var state: SourceState = .starting
  private var lastError: String?

  /// A serial source for `path` at `baud`.
  public init(id: SourceID, path: String, baud: SourceURI.Baud, loop: EventLoop, sink: SourceSink) {
    self.id = id
    self.device = SerialDevice(path: path)
    self.loop = loop
    self.sink = sink
    self.uri = SourceURI.serial(path: path, baud: baud).description
    self.speed = SerialSpeed(baud)
    self.live = LiveDecoder(
      loop: loop, gpsdJSON: false, onSky: { [unowned self] sky in self.sink.sky(sky, self.id) }
    ) { [unowned self] fix, start in
      self.sink.fix(
        fix, self.id, FixWriter.device(owner: self.device.owner, daemonUID: CurrentProcess.userID), start)
    }
    live.relay = { [unowned self] line in self.sink.sentence(line, self.id) }
    live.logSilences(of: "source \(uri)", to: sink.log) { [unowned self] in
      self.sink.update(self.snapshot, false)
    }
  }

  /// The speed in use (or being tried).
  var baud: Int { speed.rate }

  public var snapshot: SourceSnapshot {
    var counters = live.counters.sourceCounters + [Counter("silences", live.silences)]
    counters += openings.counters
    counters += speed.counters
    // Silence says more than a hunt failing on it; either is a fault the state does not say.
    let fault = live.fault ?? speed.failure.map { SourceFault(kind: .noNMEA, reason: $0, since: loop.now) }
    return SourceSnapshot(
      id: id, uri: uri, state: state, counters: counters, lastError: lastError, trust: .system, fault: fault)
  }

  public func start() {
    do {
      timer = try loop.timer(clock: .monotonic, accuracyMicroseconds: 10_000) { [weak self] in
        self?.timerFired()
      }
    } catch {
      state = .failed
      lastError = "timer: \(error)"
      sink.update(snapshot, false)
      return
    }
    if active {
      open()
    } else {
      state = .idle
      sink.update(snapshot, false)
    }
  }

  public func setSkiesWanted(_ wanted: Bool) { live.assemblesSkies = wanted }

  public func setActive(_ active: Bool) {
    guard active != self.active else { return }
    self.active = active
    guard timer != nil else { return }  // not started (or stopped): `start` decides
    if active {
      sink.log(.debug, "source \(uri): opening the device, fixes are wanted")
      open()
      return
    }
    timer?.disarm()
    if device.watch != nil {
      device.close()
      live.end()
      speed.closedWhileIdle(validSentences: live.counters.sentences)
      sink.log(.debug, "source \(uri): device closed while acquisition is idle")
    }
    openings.idle()
    lastError = nil
    state = .idle
    sink.update(snapshot, false)
  }

  public func stop() {
    timer?.cancel()
    timer = nil
    device.close()
    live.stop()
  }

  private func open() {
    let isTerminal: Bool
    do throws(Errno) {
      isTerminal = try device.open(baud: baud, on: loop) { [weak self] events in self?.readAvailable(events) }
    } catch {
      openings.openFailed()
      unavailable(error.description)
      return
    }
    if !isTerminal { sink.log(.debug, "source \(uri): not a terminal; read as it is") }
    let again = openings.opened() ? " again" : ""
    lastError = nil
    live.begin()
    // A speed found before an idle close is kept: the receiver did not change (an unplug,
    // `gone`, starts the hunt again), so the device is connected at once at that speed.
    if speed.opened(validSentences: live.counters.sentences) {
      state = .starting
      timer?.arm(atMicroseconds: loop.monotonicMicroseconds + BaudHunt.probeMicroseconds)
      sink.log(.info, "source \(uri): opened\(again); detecting the speed, trying \(baud) baud")
    } else {
      state = .connected
      timer?.disarm()
      sink.log(.info, "source \(uri): opened\(again) at \(baud) baud")
    }
    sink.update(snapshot, true)
  }

  /// The device could not be opened or went away: try again every few seconds, logging
  /// once per outage.
  private func unavailable(_ reason: String) {
    lastError = reason
    guard active else {
      state = .idle
      sink.update(snapshot, false)
      return
    }
    if openings.unavailable() {
      sink.log(
        .warning,
        "source \(uri): \(reason); opening again every \(SerialSource.reopenMicroseconds / 1_000_000) s")
    } else {
      sink.log(.debug, "source \(uri): \(reason)")
    }
    state = .reconnecting(retryAt: loop.now.adding(microseconds: Int64(SerialSource.reopenMicroseconds)))
    timer?.arm(atMicroseconds: loop.monotonicMicroseconds + SerialSource.reopenMicroseconds)
    sink.update(snapshot, false)
  }

  private func readAvailable(_ events: UInt32) {
    guard let watch = device.watch else { return }
    let outcome = device.reader.readAvailable(from: watch.descriptor) { chunk in
      openings.read(chunk.count)
      live.feed(chunk)
      checkSpeed()
      return device.watch === watch
    }
    switch outcome {
    case .endOfFile: gone("end of file")
    case .failed(let error): gone(error.description)
    case .wouldBlock:
      // A hang-up with nothing to read: some drivers say so only through poll.
      if events & (Epoll.hangup | Epoll.error) != 0 { gone("hung up") }
    case .shortRead, .budgetSpent, .stopped: break
    }
  }

  private func checkSpeed() {
    guard speed.observe(validSentences: live.counters.sentences) else { return }
    timer?.disarm()
    state = .connected
    lastError = nil
    sink.log(.info, "source \(uri): receiving NMEA at \(baud) baud")
    sink.update(snapshot, false)
  }

  private func timerFired() {
    guard active else { return }
    guard device.watch != nil else {
      open()
      return
    }
    guard let next = speed.nextRate(validSentences: live.counters.sentences) else { return }
    if next.firstRoundFailed, let failure = speed.failure {
      // Until a speed works: status shows it (`lastError`, the `no-nmea` fault), not only the log.
      lastError = failure
      sink.log(.warning, "source \(uri): \(failure); still trying")
      sink.update(snapshot, false)
    }
    do throws(Errno) {
      try device.setSpeed(next.rate)
    } catch {
      gone(error.description)
      return
    }
    sink.log(.debug, "source \(uri): trying \(next.rate) baud")
    timer?.arm(atMicroseconds: loop.monotonicMicroseconds + BaudHunt.probeMicroseconds)
  }

  private func gone(_ reason: String) {
    device.close()
    live.end()
    openings.lost()
    speed.deviceGone(validSentences: live.counters.sentences)
    unavailable(reason)
  }
}
