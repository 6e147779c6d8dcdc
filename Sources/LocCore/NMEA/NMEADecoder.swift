/// The one-stop decoder: bytes in, fixes out. Framer, sentence parser and epoch assembler
/// together, with all their counters. Feed it whatever a source reads, in any chunks: the
/// fixes are the same for every chunking.
///
/// With `gpsdJSON`, lines starting with `{` are gpsd JSON reports: each `TPV` with a time
/// becomes a fix (satellite counts and DOPs from the last `SKY`), except one identical to
/// the fix just emitted. That lets one decoder read `gpspipe -r` and `gpspipe -w` output.
public struct NMEADecoder: Sendable {
  private var framer: NMEAFramer
  private var assembler: EpochAssembler
  private var own = NMEACounters()
  private var lastSky: GpsdMessage.SKY?
  private var lastGpsdFix: Fix?
  private var assembledSkies = 0

  /// The latest sky: of the latest NMEA cycle that completed a GSV message, or of the latest
  /// gpsd `SKY` that listed satellites; `nil` before either.
  public private(set) var sky: Sky?
  /// How many skies came so far: a caller that remembers it sees when `sky` is new.
  public private(set) var skyCount = 0

  /// A decoder. `referenceTime`: see `EpochAssembler.referenceTime`. `maxLineLength`: the
  /// framer's bound for NMEA lines. `gpsdJSON`: also decode gpsd JSON lines. `skies`:
  /// assemble `sky` (off for a reader that wants only fixes, such as `locctl decode`).
  public init(
    referenceTime: Instant? = nil, maxLineLength: Int = NMEAFramer.defaultMaxLineLength,
    gpsdJSON: Bool = false, skies: Bool = true
  ) {
    framer = NMEAFramer(
      maxLineLength: maxLineLength, maxJSONLineLength: gpsdJSON ? NMEAFramer.defaultMaxJSONLineLength : 0)
    assembler = EpochAssembler(referenceTime: referenceTime, skies: skies)
  }

  /// Whether skies are assembled (NMEA's GSV and GSA into `sky`, gpsd's `SKY` into `sky`):
  /// it can change between lines (`EpochAssembler.assemblesSkies`). Turned off, `sky` is
  /// dropped and GSV's and GSA's satellite ids are no longer read; fixes are the same either
  /// way (their counts and DOPs come from the sentences' headers and gpsd's `SKY` counts).
  public var assemblesSkies: Bool {
    get { assembler.assemblesSkies }
    set {
      guard newValue != assembler.assemblesSkies else { return }
      assembler.assemblesSkies = newValue
      // The assembler's count stays; only a new one after this is taken.
      assembledSkies = assembler.skyCount
      if !newValue { sky = nil }
    }
  }

  /// The caller's clock, for dating a stream that has not yet given a date and for the GPS
  /// week rollover (see `EpochAssembler`). Set it before each `feed` in a live daemon.
  public var referenceTime: Instant? {
    get { assembler.referenceTime }
    set { assembler.referenceTime = newValue }
  }

  /// The last sentence learned as the end of a receiver cycle (see `EpochAssembler`).
  public var learnedCycleEnd: String? { assembler.learnedCycleEnd }

  /// Whether an epoch waits for more sentences (or for `flush`): false once a cycle closed
  /// on its learned last sentence, so a live source need not wake to flush it.
  public var holdsEpoch: Bool { assembler.holdsEpoch }

  /// All counters.
  public var counters: NMEACounters {
    var c = own
    framer.counters.copy(into: &c)
    let a = assembler.counters
    c.fixes += a.fixes
    c.undatedEpochs = a.undatedEpochs
    c.timeWentBackwards = a.timeWentBackwards
    c.lateSentences = a.lateSentences
    c.rolloverCorrections = a.rolloverCorrections
    c.rolloverRefused = a.rolloverRefused
    c.implausibleValues += a.implausibleValues
    return c
  }

  /// Decodes `bytes`; calls `onFix` for every fix they complete.
  public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ onFix: (Fix) -> Void) {
    // The framer calls back into `self`: take it out for the duration so the two accesses
    // do not overlap (swapping moves its buffer; nothing is copied).
    var local = NMEAFramer(maxLineLength: 8)
    swap(&local, &framer)
    local.feed(bytes) { line in decodeLine(line, onFix) }
    swap(&local, &framer)
  }

  /// Decodes one line already cut by the caller (no terminator).
  public mutating func decodeLine(_ line: UnsafeRawBufferPointer, _ onFix: (Fix) -> Void) {
    decodeLine(line, arrivedAt: nil) { fix, _ in onFix(fix) }
  }

  /// Decodes one line that arrived at `arrival` (the caller's clock); `onCycle` gets each fix
  /// with the arrival of its cycle's first sentence where the cycle's start is known
  /// (`EpochAssembler.add(_:arrivedAt:_:)`), for a gpsd TPV the arrival of its line.
  /// Inlined into `feed`'s per-line closure, as it was before it took the arrival.
  @inline(__always)
  public mutating func decodeLine(
    _ line: UnsafeRawBufferPointer, arrivedAt arrival: Instant?,
    _ onCycle: (Fix, _ cycleStart: Instant?) -> Void
  ) {
    if line.first == 0x7B {  // {
      decodeJSON(line) { fix in onCycle(fix, arrival) }
      return
    }
    switch NMEASentence.parse(line, satellites: assemblesSkies) {
    case .sentence(let sentence):
      own.sentences += 1
      assembler.add(sentence, arrivedAt: arrival, onCycle)
      takeAssembledSky()
    case .badChecksum: own.badChecksums += 1
    case .proprietary, .unsupported: own.skipped += 1
    case .malformed: own.errors += 1
    }
  }

  private mutating func decodeJSON(_ line: UnsafeRawBufferPointer, _ onFix: (Fix) -> Void) {
    guard let message = try? GpsdMessage.parse(line) else {
      own.errors += 1
      return
    }
    own.gpsdReports += 1
    switch message {
    case .sky(let sky):
      lastSky = sky
      if assemblesSkies, !sky.satellites.isEmpty {
        self.sky = Sky(satellites: sky.satellites)
        skyCount += 1
      }
    case .tpv(let tpv):
      guard var fix = tpv.fix(sky: lastSky) else { return }
      let dropped = FixPlausibility.bound(&fix)
      guard fix != lastGpsdFix else { return }
      own.implausibleValues += dropped
      lastGpsdFix = fix
      own.fixes += 1
      onFix(fix)
    default: break
    }
  }

  /// Emits the pending epoch now: call it when the source has been quiet for longer than a
  /// receiver cycle, so the last fix is not held back. The pause also teaches the assembler
  /// which sentence ends this receiver's cycles (`EpochAssembler.flush(afterPause:)`).
  public mutating func flush(_ onFix: (Fix) -> Void) {
    flush { fix, _ in onFix(fix) }
  }

  /// `flush`, each fix with its cycle's start (`decodeLine(_:arrivedAt:_:)`).
  public mutating func flush(_ onCycle: (Fix, _ cycleStart: Instant?) -> Void) {
    assembler.flush(afterPause: true, onCycle)
    takeAssembledSky()
  }

  /// Takes the assembler's sky when it has a new one.
  private mutating func takeAssembledSky() {
    guard assemblesSkies, assembler.skyCount != assembledSkies else { return }
    assembledSkies = assembler.skyCount
    sky = assembler.sky
    skyCount += 1
  }

  /// Ends the input: a line left open is decoded if it can be (counted as unterminated) and
  /// the pending epoch is emitted.
  public mutating func finish(_ onFix: (Fix) -> Void) {
    var local = NMEAFramer(maxLineLength: 8)
    swap(&local, &framer)
    local.finish { line in decodeLine(line, onFix) }
    swap(&local, &framer)
    assembler.flush(onFix)
    takeAssembledSky()
  }
}
