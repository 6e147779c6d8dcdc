import LocCore

/// Decodes one live byte stream for a source: lines cut by `NMEAFramer` and decoded by
/// `NMEADecoder` (NMEA, and gpsd JSON when asked), dated with the loop's wall clock (unlike a
/// replay: it dates GGA-only streams and catches GPS week rollover), flushed when the stream
/// pauses, with long silences counted. Counters accumulate over the decoder's life, across
/// reconnections of its source.
final class LiveDecoder {
  /// A pause this long after the last byte ends the pending epoch (`NMEADecoder.flush`), so
  /// a receiver's last fix before a pause is not held back until the next burst. Receivers
  /// send one burst per cycle and bytes within a burst follow each other closely; 0.5 s fits
  /// between the bursts of a 1 Hz receiver and never splits a burst.
  static let quietMicroseconds: UInt64 = 500_000
  /// No byte for this long is a silence, counted (`silences`) and reported once. A receiver
  /// sends at least once a second: ten missed cycles is not a hiccup.
  static let silenceMicroseconds: UInt64 = 10_000_000

  let loop: EventLoop
  private var framer: NMEAFramer
  private var decoder: NMEADecoder
  private var coalescer: FixCoalescer?
  private var timer: Timer?
  private var lastByteAt: UInt64 = 0
  private var flushDue = false
  private var running = false
  /// Whether no byte has come for `silenceMicroseconds`.
  private(set) var silent = false
  /// Silences so far.
  private(set) var silences = 0
  /// Whether input is ignored (acquisition idle): counted, never decoded, no timer for it.
  private(set) var paused = false
  /// Bytes ignored while paused (and, after resuming, up to the next line end).
  private(set) var ignoredBytes = 0
  /// Line ends among the ignored bytes: about one per sentence not decoded.
  private(set) var ignoredLines = 0
  /// Whether the last byte seen, decoded or ignored, ended a line.
  private var atLineStart = true
  /// Paused in the middle of a line: the bytes up to its end are still decoded.
  private var finishingLine = false
  /// Resumed in the middle of an ignored line: bytes up to its end are ignored too.
  private var skippingToLineEnd = false
  /// Whether silence is watched for (gpsd with its watch off is silent by request).
  var watchesSilence = true {
    didSet {
      if watchesSilence && !oldValue { lastByteAt = loop.monotonicMicroseconds }
      if running { armSilence() }
    }
  }
  private let onFix: (Fix) -> Void
  /// Sees every line before it is decoded (for gpsd's protocol messages). It must not end
  /// this decoder synchronously.
  var onLine: ((UnsafeRawBufferPointer) -> Void)?
  /// Told when a silence begins (true) and when bytes come again (false).
  private var onSilence: ((Bool) -> Void)?

  /// Logs each silence where it begins (notice: "`who` sent nothing for 10 s") and where it
  /// ends (info: "`who` sending again"); every live source words it the same way.
  func logSilences(of who: String, to log: @escaping (LogLevel, String) -> Void) {
    onSilence = { began in
      if began {
        log(.notice, "\(who) sent nothing for \(LiveDecoder.silenceMicroseconds / 1_000_000) s")
      } else {
        log(.info, "\(who) sending again")
      }
    }
  }

  /// A decoder on `loop`. `gpsdJSON`: also frame and decode gpsd JSON lines.
  /// `coalescingSameTime`: hold each fix until one with another time comes (gpsd's TPVs,
  /// see `FixCoalescer`).
  init(loop: EventLoop, gpsdJSON: Bool, coalescingSameTime: Bool = false, onFix: @escaping (Fix) -> Void) {
    self.loop = loop
    framer = NMEAFramer(
      maxLineLength: NMEAFramer.defaultMaxLineLength,
      maxJSONLineLength: gpsdJSON ? NMEAFramer.defaultMaxJSONLineLength : 0)
    decoder = NMEADecoder(gpsdJSON: gpsdJSON)
    coalescer = coalescingSameTime ? FixCoalescer() : nil
    self.onFix = onFix
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
    silent = false
    atLineStart = true
    finishingLine = false
    skippingToLineEnd = false
    lastByteAt = loop.monotonicMicroseconds
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
    guard !paused else { return }
    paused = true
    finishingLine = !atLineStart
    skippingToLineEnd = false
    if flushDue && !finishingLine { flush() }
    if !flushDue { timer?.disarm() }
  }

  /// Decodes again from the next line start; silence is timed from now.
  func resume() {
    guard paused else { return }
    paused = false
    finishingLine = false
    skippingToLineEnd = !atLineStart
    silent = false
    lastByteAt = loop.monotonicMicroseconds
    armSilence()
  }

  /// Decodes bytes read from the stream (or counts them while paused).
  func feed(_ bytes: UnsafeRawBufferPointer) {
    guard !bytes.isEmpty else { return }
    var start = 0
    if finishingLine || skippingToLineEnd {
      let end = bytes.firstIndex(of: 0x0A).map { $0 + 1 } ?? bytes.count
      let part = UnsafeRawBufferPointer(rebasing: bytes[0..<end])
      if finishingLine { decode(bytes: part) } else { ignore(part) }
      if bytes[end - 1] == 0x0A {
        finishingLine = false
        skippingToLineEnd = false
      }
      start = end
    }
    if paused {
      if start < bytes.count { ignore(UnsafeRawBufferPointer(rebasing: bytes[start...])) }
      return
    }
    guard start < bytes.count else { return }
    decode(bytes: UnsafeRawBufferPointer(rebasing: bytes[start...]))
  }

  private func ignore(_ bytes: UnsafeRawBufferPointer) {
    ignoredBytes += bytes.count
    for b in bytes where b == 0x0A { ignoredLines += 1 }
    atLineStart = bytes.last == 0x0A
  }

  private func decode(bytes: UnsafeRawBufferPointer) {
    atLineStart = bytes.last == 0x0A
    decoder.referenceTime = loop.now
    lastByteAt = loop.monotonicMicroseconds
    if silent {
      silent = false
      onSilence?(false)
    }
    framer.feed(bytes) { line in decode(line) }
    flushDue = true
    timer?.arm(atMicroseconds: lastByteAt + LiveDecoder.quietMicroseconds)
  }

  /// The stream ended (closed, lost): a half line is counted (and decoded if it can be), the
  /// pending epoch emitted. `begin` starts the next stream.
  func end() {
    running = false
    framer.finish { line in decode(line) }
    flush()
    timer?.disarm()
    silent = false
  }

  /// Stops the timer for good.
  func stop() {
    running = false
    timer?.cancel()
    timer = nil
  }

  private func decode(_ line: UnsafeRawBufferPointer) {
    onLine?(line)
    decoder.decodeLine(line) { fix in emit(fix) }
  }

  private func emit(_ fix: Fix) {
    if coalescer != nil {
      coalescer!.add(fix, onFix)
    } else {
      onFix(fix)
    }
  }

  private func flush() {
    flushDue = false
    decoder.flush { fix in emit(fix) }
    coalescer?.flush(onFix)
  }

  private func timerFired() {
    if flushDue {
      flush()
      armSilence()
      return
    }
    guard running, watchesSilence, !silent, !paused else { return }
    silent = true
    silences += 1
    onSilence?(true)
  }

  private func armSilence() {
    guard running, !flushDue else { return }
    if watchesSilence && !silent && !paused {
      timer?.arm(atMicroseconds: lastByteAt + LiveDecoder.silenceMicroseconds)
    } else {
      timer?.disarm()
    }
  }
}
