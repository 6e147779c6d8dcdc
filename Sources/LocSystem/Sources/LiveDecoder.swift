import LocCore

/// Decodes one live byte stream for a source: lines cut by `NMEAFramer` and decoded by
/// `NMEADecoder` (NMEA, and gpsd JSON when asked), dated with the loop's wall clock (unlike a
/// replay: it dates GGA-only streams and catches GPS week rollover), flushed when the stream
/// pauses, with long silences counted (`SilenceWatch`) and input let through by whole lines
/// while acquisition pauses it (`LineGate`). Counters accumulate over the decoder's life,
/// across reconnections of its source.
final class LiveDecoder {
  /// A pause this long after the last byte ends the pending epoch (`NMEADecoder.flush`), so
  /// a receiver's last fix before a pause is not held back until the next burst. Receivers
  /// send one burst per cycle and bytes within a burst follow each other closely; 0.5 s fits
  /// between the bursts of a 1 Hz receiver and never splits a burst.
  static let quietMicroseconds: UInt64 = 500_000
  let loop: EventLoop
  private var framer: NMEAFramer
  private var decoder: NMEADecoder
  private var coalescing: Coalescing?
  /// The flush after a pause, and the silence deadline.
  private var timer: Timer?
  private var flushDue = false
  private var running = false
  /// Which bytes are decoded while acquisition pauses and resumes the stream.
  private var gate = LineGate()
  /// When the stream falls silent, and the silences so far.
  private var silence = SilenceWatch()
  /// Where fixes, skies and lines go.
  private var outputs: Outputs
  /// When the bytes being decoded were read (this machine's wall clock).
  private var arrival: Instant?
  /// Sees every line before it is decoded (for gpsd's protocol messages). It must not end
  /// this decoder synchronously.
  var onLine: ((UnsafeRawBufferPointer) -> Void)? {
    get { outputs.seen }
    set { outputs.seen = newValue }
  }
  /// Sees every line too, to pass the receiver's own sentences on (`SourceSink.sentence`).
  var relay: ((UnsafeRawBufferPointer) -> Void)? {
    get { outputs.line }
    set { outputs.line = newValue }
  }
  /// Told when a silence begins (true) and when bytes come again (false).
  private var onSilence: ((Bool) -> Void)?

  /// Whether no byte has come for `SilenceWatch.limitMicroseconds`.
  var silent: Bool { silence.silent }
  /// Silences so far, counted once each.
  var silences: Int { silence.silences }
  /// Whether input is ignored (acquisition idle): counted, never decoded, no timer for it.
  var paused: Bool { gate.paused }
  /// Bytes ignored while paused (and, after resuming, up to the next line end).
  var ignoredBytes: Int { gate.ignoredBytes }
  /// Line ends among the ignored bytes: about one per sentence not decoded.
  var ignoredLines: Int { gate.ignoredLines }
  /// Whether the decoder assembles skies (`NMEADecoder.assemblesSkies`): the daemon turns it
  /// on while someone reads satellites (decision 0069); fixes are the same either way.
  var assemblesSkies: Bool {
    get { decoder.assemblesSkies }
    set { decoder.assemblesSkies = newValue }
  }
  /// Whether silence is watched for (gpsd with its watch off is silent by request).
  var watchesSilence: Bool {
    get { silence.watching }
    set {
      silence.watch(newValue, at: loop.monotonicMicroseconds)
      if running { armSilence() }
    }
  }

  /// A silence in words, as the log says it where it begins: "sent nothing for 10 s".
  static let silenceReason = "sent nothing for \(SilenceWatch.limitMicroseconds / 1_000_000) s"

  /// The `silent` fault's reason: it is dated from where the silence was noticed, so status
  /// reads "silent for 3 s (since 14:03:07): nothing came in the 10 s before" (it read
  /// "silent for 3 s ...: sent nothing for 10 s"; issue 43, item 10).
  static let silenceFaultReason = "nothing came in the \(SilenceWatch.limitMicroseconds / 1_000_000) s before"

  /// The `silent` fault while the stream is silent (dated `now`: the engine keeps the date
  /// it began), else nil.
  var fault: SourceFault? {
    silent ? SourceFault(kind: .silent, reason: LiveDecoder.silenceFaultReason, since: loop.now) : nil
  }

  /// Logs each silence where it begins (notice: "`who` sent nothing for 10 s") and where it
  /// ends (info: "`who` sending again"), then calls `changed` so the source reports its
  /// fault beginning and ending; every live source words it the same way.
  func logSilences(
    of who: String, to log: @escaping (LogLevel, String) -> Void, then changed: @escaping () -> Void
  ) {
    onSilence = { began in
      if began {
        log(.notice, "\(who) \(LiveDecoder.silenceReason)")
      } else {
        log(.info, "\(who) sending again")
      }
      changed()
    }
  }

  /// Where a decoder's results go: each fix, and each new sky (`NMEADecoder.sky`); and each
  /// line, as it came.
  private struct Outputs {
    /// A fix, with the arrival of its cycle's first sentence where that is known.
    var fix: (Fix, Instant?) -> Void
    var sky: (Sky) -> Void
    var line: ((UnsafeRawBufferPointer) -> Void)? = nil
    /// Each line before it is decoded (`onLine`).
    var seen: ((UnsafeRawBufferPointer) -> Void)? = nil
  }

  /// gpsd's TPVs of one time held until another time comes (`FixCoalescer`), and the arrival
  /// of the first of the held time's.
  private struct Coalescing {
    var coalescer = FixCoalescer()
    var start: Instant? = nil
  }

  /// A decoder on `loop`. `gpsdJSON`: also frame and decode gpsd JSON lines.
  /// `coalescingSameTime`: hold each fix until one with another time comes (gpsd's TPVs,
  /// see `FixCoalescer`). `onSky` gets each new sky as soon as it is decoded (it is not
  /// coalesced: a sky has no time to wait for).
  init(
    loop: EventLoop, gpsdJSON: Bool, coalescingSameTime: Bool = false,
    onSky: @escaping (Sky) -> Void = { _ in },
    onFix: @escaping (Fix, _ cycleStart: Instant?) -> Void
  ) {
    self.loop = loop
    framer = NMEAFramer(
      maxLineLength: NMEAFramer.defaultMaxLineLength,
      maxJSONLineLength: gpsdJSON ? NMEAFramer.defaultMaxJSONLineLength : 0)
    decoder = NMEADecoder(gpsdJSON: gpsdJSON)
    coalescing = coalescingSameTime ? Coalescing() : nil
    outputs = Outputs(fix: onFix, sky: onSky)
  }

  deinit { timer?.cancel() }

  /// Everything counted so far.
  var counters: NMEACounters {
    var c = decoder.counters
    framer.counters.copy(into: &c)
    return c
  }

  /// A stream begins (connected, opened): silence is timed from now.
  func begin() {
    running = true
    gate.begin()
    silence.restart(at: loop.monotonicMicroseconds)
    if timer == nil {
      timer = try? loop.timer(clock: .monotonic, accuracyMicroseconds: 10_000) { [weak self] in
        self?.timerFired()
      }
    }
    armSilence()
  }

  /// Stops decoding (acquisition went idle): the line in progress is finished and the
  /// pending epoch emitted; later bytes are only counted.
  func pause() {
    guard gate.pause() else { return }
    if flushDue && !gate.finishingLine { flush() }
    if !flushDue { timer?.disarm() }
  }

  /// Decodes again from the next line start; silence is timed from now.
  func resume() {
    guard gate.resume() else { return }
    silence.restart(at: loop.monotonicMicroseconds)
    armSilence()
  }

  /// Decodes bytes read from the stream (or counts them while paused).
  func feed(_ bytes: UnsafeRawBufferPointer) {
    guard let part = gate.pass(bytes) else { return }
    decode(bytes: UnsafeRawBufferPointer(rebasing: bytes[part]))
  }

  private func decode(bytes: UnsafeRawBufferPointer) {
    decoder.referenceTime = loop.now
    // When these bytes came: the wall clock at the read (chrony's samples are stamped with
    // the arrival of a cycle's first sentence, decision 0064).
    arrival = Instant(microsecondsSinceEpoch: Clocks.microseconds(.realtime))
    let now = loop.monotonicMicroseconds
    if silence.heard(at: now) { onSilence?(false) }
    framer.feed(bytes) { line in decode(line) }
    // Once the cycle's last sentence is learned its epoch goes out on arrival, and there is
    // nothing to flush at the pause: no wakeup for it, only the silence deadline.
    guard decoder.holdsEpoch || coalescing?.coalescer.held != nil else {
      flushDue = false
      armSilence()
      return
    }
    flushDue = true
    timer?.arm(atMicroseconds: now + LiveDecoder.quietMicroseconds)
  }

  /// The stream ended (closed, lost): a half line is counted (and decoded if it can be), the
  /// pending epoch emitted. `begin` starts the next stream.
  func end() {
    running = false
    framer.finish { line in decode(line) }
    flush()
    timer?.disarm()
    silence.ended()
  }

  /// Stops the timer for good.
  func stop() {
    running = false
    timer?.cancel()
    timer = nil
  }

  private func decode(_ line: UnsafeRawBufferPointer) {
    outputs.seen?(line)
    outputs.line?(line)
    let skies = decoder.skyCount
    var fixes: [(Fix, Instant?)] = []
    decoder.decodeLine(line, arrivedAt: arrival) { fix, start in fixes.append((fix, start)) }
    // A cycle's sky goes before its fix (the assembler closes both with the same sentence):
    // the gpsd face reads the sky for the TPV's epx and epy, as gpsd does.
    reportSky(after: skies)
    for (fix, start) in fixes { emit(fix, start) }
  }

  private func emit(_ fix: Fix, _ start: Instant?) {
    guard var c = coalescing else {
      outputs.fix(fix, start)
      return
    }
    // gpsd's TPVs of one time are held until another time comes: the held one's start is
    // the arrival of the first of them.
    let held = c.start
    if c.coalescer.held?.time != fix.time { c.start = start }
    var emitted: Fix? = nil
    c.coalescer.add(fix) { emitted = $0 }
    coalescing = c
    if let emitted { outputs.fix(emitted, held) }
  }

  /// Hands the decoder's sky on when it changed since the decoder's count was `count`.
  private func reportSky(after count: Int) {
    if decoder.skyCount != count, let sky = decoder.sky { outputs.sky(sky) }
  }

  private func flush() {
    flushDue = false
    let skies = decoder.skyCount
    var fixes: [(Fix, Instant?)] = []
    decoder.flush { fix, start in fixes.append((fix, start)) }
    reportSky(after: skies)
    for (fix, start) in fixes { emit(fix, start) }
    if var c = coalescing {
      var emitted: Fix? = nil
      c.coalescer.flush { emitted = $0 }
      coalescing = c
      if let emitted { outputs.fix(emitted, c.start) }
    }
  }

  private func timerFired() {
    if flushDue {
      flush()
      armSilence()
      return
    }
    guard running, silence.expired(paused: gate.paused) else { return }
    onSilence?(true)
  }

  private func armSilence() {
    guard running, !flushDue else { return }
    if let deadline = silence.deadline(paused: gate.paused) {
      timer?.arm(atMicroseconds: deadline)
    } else {
      timer?.disarm()
    }
  }
}
