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
  let path: String
  let fixedBaud: Int?
  let loop: EventLoop
  let sink: SourceSink
  private var live: LiveDecoder!
  private var hunt: BaudHunt?
  /// The open device, owned by its watch.
  private var watch: IOWatch?
  private var timer: Timer?
  private var failing = false
  private var active = true
  private var everOpened = false
  private var opens = 0
  private var closes = 0
  private var bytes = 0
  private var state: SourceState = .starting
  private var lastError: String?
  /// Reads of 4 KiB, at most 64 KiB per wakeup (a 460,800 baud line brings 46 KB a second).
  private let reader = ReadBuffer(chunkSize: 4096, maxBytesPerWakeup: 16 * 4096)

  /// A serial source for `path` at `baud`.
  public init(id: SourceID, path: String, baud: SourceURI.Baud, loop: EventLoop, sink: SourceSink) {
    self.id = id
    self.path = path
    self.loop = loop
    self.sink = sink
    self.uri = SourceURI.serial(path: path, baud: baud).description
    switch baud {
    case .auto:
      fixedBaud = nil
      hunt = BaudHunt()
    case .fixed(let rate):
      fixedBaud = rate
    }
    self.live = LiveDecoder(loop: loop, gpsdJSON: false) { [unowned self] fix in self.sink.fix(fix, self.id) }
    live.logSilences(of: "source \(uri)", to: sink.log)
  }

  /// The speed in use (or being tried).
  var baud: Int { fixedBaud ?? hunt!.rate }

  public var snapshot: SourceSnapshot {
    var counters = live.counters.sourceCounters + [Counter("silences", live.silences)]
    counters += [Counter("opens", opens), Counter("disconnects", closes), Counter("bytes", bytes)]
    counters.append(Counter("baud", baud))
    if let hunt { counters.append(Counter("baudProbes", hunt.probes)) }
    return SourceSnapshot(
      id: id, uri: uri, state: state, counters: counters, lastError: lastError, trust: .system)
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
    if watch != nil {
      closeDevice()
      live.end()
      if var h = hunt, !h.isLocked {
        h.restart(validSentences: live.counters.sentences)
        hunt = h
      }
      sink.log(.debug, "source \(uri): device closed while acquisition is idle")
    }
    failing = false
    lastError = nil
    state = .idle
    sink.update(snapshot, false)
  }

  public func stop() {
    timer?.cancel()
    timer = nil
    closeDevice()
    live.stop()
  }

  private func open() {
    do throws(Errno) {
      let device = try SerialPort.open(path)
      let isTerminal = try SerialPort.configure(device, baud: baud)
      if !isTerminal { sink.log(.debug, "source \(uri): not a terminal; read as it is") }
      watch = try loop.watch(device, events: Epoll.input) { [weak self] events in self?.readAvailable(events)
      }
    } catch {
      closeDevice()
      unavailable(error.description)
      return
    }
    opens += 1
    lastError = nil
    live.begin()
    let again = everOpened ? " again" : ""
    everOpened = true
    failing = false
    // A speed found before an idle close is kept: the receiver did not change (an unplug,
    // `gone`, starts the hunt again), so the device is connected at once at that speed.
    if var h = hunt, !h.isLocked {
      h.beginWindow(validSentences: live.counters.sentences)
      hunt = h
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
    if !failing {
      failing = true
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
    guard let watch else { return }
    let outcome = reader.readAvailable(from: watch.descriptor) { chunk in
      bytes += chunk.count
      live.feed(chunk)
      checkSpeed()
      return self.watch === watch
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
    guard var h = hunt, !h.isLocked else { return }
    if h.observe(validSentences: live.counters.sentences) {
      hunt = h
      timer?.disarm()
      state = .connected
      sink.log(.info, "source \(uri): receiving NMEA at \(h.rate) baud")
      sink.update(snapshot, false)
    }
  }

  private func timerFired() {
    guard active else { return }
    guard let watch else {
      open()
      return
    }
    guard var h = hunt, !h.isLocked else { return }
    let rounds = h.failedRounds
    let rate = h.nextRate(validSentences: live.counters.sentences)
    hunt = h
    if h.failedRounds == 1 && rounds == 0 {
      let rates = h.rates.map(String.init).joined(separator: ", ")
      sink.log(.warning, "source \(uri): no NMEA at \(rates) baud; still trying")
    }
    do throws(Errno) {
      try SerialPort.configure(watch.descriptor, baud: rate)
    } catch {
      gone(error.description)
      return
    }
    sink.log(.debug, "source \(uri): trying \(rate) baud")
    timer?.arm(atMicroseconds: loop.monotonicMicroseconds + BaudHunt.probeMicroseconds)
  }

  private func gone(_ reason: String) {
    closeDevice()
    live.end()
    closes += 1
    if var h = hunt {
      h.restart(validSentences: live.counters.sentences)
      hunt = h
    }
    unavailable(reason)
  }

  private func closeDevice() {
    watch?.cancel()
    watch = nil  // closes the device
  }
}
