/// Turns the decoded sentences of one receiver cycle (one UTC time) into one `Fix`.
///
/// **When a fix is emitted.** An epoch ends when a sentence with a different UTC time
/// arrives (time change), or as soon as the sentence that ends this receiver's cycle has
/// arrived. That end-of-cycle sentence is learned: when three consecutive epochs ended (by
/// a time change) with the same sentence (same talker and type; for GSV, the last part), it
/// is taken as the cycle's last sentence, and later epochs are emitted on its arrival
/// instead of one cycle late. So a GGA-only, RMC-only or 10 Hz stream, and one whose cycles
/// end with a timeless GSA or GSV, all get their fixes without delay from the fourth cycle
/// on. If a sentence with the time of an epoch already emitted arrives after all (the cycle
/// was not over: the receiver varies its sentence set), it is dropped and counted in
/// `lateSentences`, and the learned end is forgotten until it proves itself again. A stream
/// whose cycles have no consistent last sentence is always emitted on the time change;
/// `flush` emits the pending epoch when the source goes quiet or closes.
///
/// **Date.** From RMC or ZDA in the same epoch. Without one (a GGA-only stream), the last
/// known date is used, moved by a day when the time of day jumps by more than 12 hours
/// (midnight). Before any date is known, `referenceTime` (the caller's clock, if it has
/// one) gives the date nearest to it. With neither, the latest such epoch waits for the next
/// epoch's date and is emitted (late, just before it) when that comes — a log that starts
/// between a cycle's RMC and its GGA loses nothing; any earlier undated epoch cannot become
/// an instant and is counted in `undatedEpochs`.
///
/// **GPS week rollover.** A receiver with the 10-bit week bug reports a date a multiple of
/// 1024 weeks (19.6 years) too early. When `referenceTime` is set and a fix is more than
/// 512 weeks before it, the fix is moved forward by whole 1024-week periods to the one
/// nearest the reference and marked `dateSuspect` — but only when that lands it no later
/// than `rolloverSlack` after the reference: a buggy receiver's corrected date is the
/// clock's, while a correction into the future means an old log (a 2014 recording played
/// in 2026 would become 2034) and the date is kept as it came (`rolloverRefused`). Without
/// a reference nothing can tell a buggy receiver from an old log, so nothing is changed.
///
/// **Which sentence wins.** Position, quality and altitude come from the best source in the
/// epoch: a `GN` (combined) talker before single systems, then GGA or GNS, RMC, GLL; ties go
/// to the first. Speed and course from RMC, else VTG.
/// Satellites used: the largest of the GGA/GNS counts and the total of the GSA id lists.
/// The satellites themselves (GSV's blocks, GSA's ids) make one `sky` per cycle that
/// completes a GSV message (`SkyAssembler`).
/// Satellites in view: per system, the largest GSV count (NMEA 4.10 repeats a system's
/// satellites once per signal), summed. HDOP from GSA, else GGA/GNS; PDOP and VDOP from GSA.
/// Horizontal accuracy (the 68 % radius, `HorizontalAccuracy`): from GST's σlat and σlon when
/// present (and not 0, a field left empty), else from `hdop × userEquivalentRangeError`.
/// Values outside `FixPlausibility`'s bounds are dropped and counted (`implausibleValues`).
///
/// **Mode.** No fix without a position. Otherwise 3D when a GGA or GNS of the epoch gives an
/// altitude for its fix, 2D when it gives a fix without one (SiRF's 2D); else the GSA fix
/// type; else — an epoch of RMC, GLL or VTG only, as from receivers that send one sentence
/// type per second — the dimension of the previous epoch while the fix lasts, 2D at first.
/// The altitude wins over a GSA that says 2D, because receivers send GSA "2" with a VDOP
/// and 14 satellites (Telit PLS83-W); gpsd does the same. But fewer than four satellites
/// used cannot give a 3D solution (four unknowns: x, y, z and the clock), so then it is 2D
/// whatever altitude the receiver holds over (SiRF, MTK).
public struct EpochAssembler: Sendable {
  /// The range error (one sigma) that turns HDOP into a horizontal accuracy estimate when the
  /// receiver sends no GST: the distance RMS of the horizontal error is HDOP × UERE(1σ) (the
  /// standard DOP relation), and `HorizontalAccuracy.fromHDOP` makes that a 68 % radius
  /// (× 1.067). 5 m is a deliberately round middle value for a single-frequency receiver
  /// without Selective Availability; published error budgets put the total between about 4
  /// and 7 m. It is pessimistic for DGPS and RTK fixes, which is the safe side.
  public static let userEquivalentRangeError = Meters(5.0)

  /// How many consecutive epochs must end with the same sentence before it is taken as the end
  /// of every cycle. Three rather than two, so that a receiver that varies its sentences
  /// (one GSA every few seconds, one sentence type per second) is less often misread.
  public static let cycleEndConfirmations = 3

  /// The caller's idea of the current time, used only to date epochs before the stream has
  /// given a date and to detect week-rollover dates. `nil`: no reference (offline decoding).
  public var referenceTime: Instant?

  /// Counters (they only grow).
  public private(set) var counters = Counters()

  private var epoch = Epoch()
  /// The learned last sentence of a cycle, and the candidate being confirmed.
  private var cycleEnd: UInt32?
  private var endCandidate: UInt32 = 0
  private var endStreak = 0
  /// The time of the epoch just emitted on its learned last sentence (to catch late ones).
  private var emittedEarly: TimeOfDay?
  /// The last date the stream gave or implied, with the time of day it belonged to.
  private var lastDate: CivilDate?
  private var lastDateTime = TimeOfDay(microsecondsSinceMidnight: 0)!
  private var lastFixTime: Instant?
  /// The dimension of the last fix, for epochs that do not state one; `nil` after no fix.
  private var lastDimension: FixMode?
  /// The latest epoch that had no date yet, waiting for the next epoch's.
  private var undated: Epoch?
  /// The last cycle closed on its learned last sentence: the next sentence begins a cycle.
  private var afterCycleEnd = false
  /// The GSV and GSA of the cycles, joined into skies (unless `assemblesSkies` is off).
  private var skies = SkyAssembler()
  /// Whether skies are assembled: it can change between sentences (the daemon turns it on
  /// while someone reads satellites, decision 0069). Turned off, the sets half collected and
  /// `sky` are dropped, so turning it on again starts from the next complete GSV set; the
  /// fix's counts and DOPs come from the GGA, GSA and GSV headers either way.
  public var assemblesSkies: Bool {
    didSet {
      guard assemblesSkies != oldValue else { return }
      skies = SkyAssembler()
      // Turned on inside a cycle, the sky starts with the next one: this cycle's GSA may
      // have gone by, and its sky would show no satellite used.
      skiesFromNextCycle = assemblesSkies && epoch.begun
      if !assemblesSkies { sky = nil }
    }
  }
  /// Whether the current cycle began before skies were turned on (it gives no sky).
  private var skiesFromNextCycle = false

  /// The sky of the latest cycle that completed a GSV set (see `SkyAssembler`), `nil`
  /// before one did. It is set when that cycle ends, before its fix is emitted.
  public private(set) var sky: Sky?
  /// How many skies were assembled: it changes with every new `sky`, even an equal one.
  public private(set) var skyCount = 0

  /// An assembler; `referenceTime` as described above. `skies`: whether to assemble the
  /// satellites into `sky` (a reader that only wants fixes saves the work).
  public init(referenceTime: Instant? = nil, skies: Bool = true) {
    self.referenceTime = referenceTime
    assemblesSkies = skies
  }

  /// The last sentence type learned as the end of a receiver cycle, as "GNRMC" (for tests
  /// and diagnostics); `nil` while fixes are emitted on time changes.
  public var learnedCycleEnd: String? {
    guard let key = cycleEnd else { return nil }
    let talker = NMEATalker(UInt8(truncatingIfNeeded: key >> 24), UInt8(truncatingIfNeeded: key >> 16))
    let names = ["RMC", "GGA", "GLL", "GNS", "GSA", "GSV", "VTG", "ZDA", "GST"]
    return "\(talker)\(names[Int(key >> 1 & 0xF)])"
  }

  /// Whether `flush` would do anything: an epoch begun, or an undated one kept.
  public var holdsEpoch: Bool { epoch.time != nil || epoch.lastKey != 0 || undated != nil }

  /// Adds one sentence that arrived at `arrival` (this machine's clock, when the caller keeps
  /// one); calls `onCycle` for an epoch it completes, with the arrival of the cycle's first
  /// sentence when the cycle's start is known: the epoch began right after a cycle closed on
  /// its learned last sentence (so not before the end is learned, nor after a cycle that was
  /// closed by a time change or a pause, which may have taken the next cycle's first
  /// sentences). That moment is the one nearest the receiver's second, which chrony's sample
  /// is stamped with (decision 0064).
  public mutating func add(
    _ sentence: NMEASentence, arrivedAt arrival: Instant?, _ onCycle: (Fix, _ cycleStart: Instant?) -> Void
  ) {
    if let time = sentence.time {
      if let current = epoch.time {
        if time != current {
          close(onCycle, onCycleEnd: false)
          epoch.time = time
        }
      } else if time == emittedEarly {
        // The cycle went on after the sentence we took for its last: unlearn it.
        counters.lateSentences += 1
        cycleEnd = nil
        endStreak = 0
        return
      } else {
        epoch.time = time
        emittedEarly = nil
      }
    }
    if !epoch.begun {
      epoch.begun = true
      epoch.arrival = arrival
      epoch.startKnown = afterCycleEnd
      afterCycleEnd = false
    }
    merge(sentence)
    let key = EpochAssembler.key(sentence)
    epoch.lastKey = key
    if key == cycleEnd {
      emittedEarly = epoch.time
      close(onCycle, onCycleEnd: true)
      afterCycleEnd = true
    }
  }

  /// Emits the pending epoch now (the source went quiet, or closed). A quiet pause
  /// (`afterPause`) ends a cycle as a time change does, so the sentence before it counts
  /// toward learning the cycle's last sentence: a 1 Hz receiver whose bursts come whole and
  /// far apart (TCP, fast serial) is flushed by the pause before the next cycle's time is
  /// seen, and without this would never be learned, each of its fixes held back until the
  /// pause. The end of the input teaches nothing.
  public mutating func flush(afterPause: Bool = false, _ onFix: (Fix) -> Void) {
    flush(afterPause: afterPause) { fix, _ in onFix(fix) }
  }

  /// `flush`, with each cycle's start as `add(_:arrivedAt:_:)` gives it.
  public mutating func flush(afterPause: Bool = false, _ onCycle: (Fix, _ cycleStart: Instant?) -> Void) {
    if epoch.time != nil || epoch.lastKey != 0 {
      afterCycleEnd = false
      close(onCycle, onCycleEnd: !afterPause)
    }
    if undated != nil {
      counters.undatedEpochs += 1
      undated = nil
    }
  }

  /// Identifies a sentence for learning the cycle's end: talker, type, and for GSV whether
  /// it is the last part.
  private static func key(_ s: NMEASentence) -> UInt32 {
    let type: UInt32
    var notLast: UInt32 = 0
    switch s.content {
    case .rmc: type = 0
    case .gga: type = 1
    case .gll: type = 2
    case .gns: type = 3
    case .gsa: type = 4
    case .gsv(let v):
      type = 5
      notLast = v.part < v.totalParts ? 1 : 0
    case .vtg: type = 6
    case .zda: type = 7
    case .gst: type = 8
    }
    return UInt32(s.talker.rawValue) << 16 | type << 1 | notLast
  }

  private mutating func offerPosition(_ c: Coordinate?, rank: Int, quality: FixQuality?) {
    guard let c, rank > epoch.coordinateRank else { return }
    epoch.coordinate = c
    epoch.coordinateRank = rank
    epoch.quality = quality
  }

  private mutating func offerAltitude(_ altitude: Meters?, _ separation: Meters?, rank: Int) {
    guard altitude != nil || separation != nil, rank > epoch.altitudeRank else { return }
    epoch.altitudeMSL = altitude
    epoch.geoidSeparation = separation
    epoch.altitudeRank = rank
  }

  private mutating func offerDimension(_ hasAltitude: Bool) {
    if hasAltitude || epoch.fixDimension == nil { epoch.fixDimension = hasAltitude ? .threeD : .twoD }
  }

  private mutating func merge(_ s: NMEASentence) {
    let combined = s.talker == .combined ? 10 : 0
    // A position without a time cannot be placed in a cycle: only its status counts. And a
    // GGA or GNS claiming a fix from zero satellites contradicts itself (Hemisphere sends
    // "1,00" while it propagates a lost fix): no position, as gpsd decides too.
    let timed = s.time != nil
    switch s.content {
    case .rmc(let r):
      epoch.hasStatus = true
      if epoch.date == nil { epoch.date = r.date }
      if r.valid, timed {
        // NMEA 2.0 RMC has no mode indicator: status A alone means an autonomous fix.
        offerPosition(r.coordinate, rank: 2 + combined, quality: r.mode?.quality ?? .gps)
        if epoch.rmcSpeed == nil { epoch.rmcSpeed = r.speed }
        if epoch.rmcCourse == nil { epoch.rmcCourse = r.course }
      }
    case .gga(let g):
      epoch.hasStatus = true
      epoch.reportedUsed = EpochAssembler.maxOptional(epoch.reportedUsed, g.satellitesUsed)
      if epoch.fixHDOP == nil { epoch.fixHDOP = g.hdop }
      if timed, g.coordinate != nil, g.satellitesUsed != 0 {
        offerPosition(g.coordinate, rank: 4 + combined, quality: g.quality)
        offerAltitude(g.altitudeMSL, g.geoidSeparation, rank: 4 + combined)
        offerDimension(g.altitudeMSL != nil)
      }
    case .gns(let g):
      epoch.hasStatus = true
      epoch.reportedUsed = EpochAssembler.maxOptional(epoch.reportedUsed, g.satellitesUsed)
      if epoch.fixHDOP == nil { epoch.fixHDOP = g.hdop }
      if timed, g.coordinate != nil, g.satellitesUsed != 0 {
        offerPosition(g.coordinate, rank: 4 + combined, quality: g.mode?.quality)
        offerAltitude(g.altitudeMSL, g.geoidSeparation, rank: 4 + combined)
        offerDimension(g.altitudeMSL != nil)
      }
    case .gll(let g):
      epoch.hasStatus = true
      if g.valid, timed { offerPosition(g.coordinate, rank: 1 + combined, quality: g.mode?.quality ?? .gps) }
    case .gsa(let a):
      if assemblesSkies, !skiesFromNextCycle { skies.add(a, from: s.talker) }
      if let m = a.fixMode, epoch.gsaMode.map({ m > $0 }) ?? true { epoch.gsaMode = m }
      epoch.gsaUsed = (epoch.gsaUsed ?? 0) + a.satellitesUsed
      if epoch.pdop == nil { epoch.pdop = a.pdop }
      if epoch.gsaHDOP == nil { epoch.gsaHDOP = a.hdop }
      if epoch.vdop == nil { epoch.vdop = a.vdop }
    case .gsv(let v):
      if assemblesSkies, !skiesFromNextCycle { skies.add(v, from: s.talker) }
      if let n = v.satellitesInView {
        let slot = s.talker.systemSlot
        epoch.inView[slot] = max(epoch.inView[slot], Int32(clamping: n))
      }
    case .vtg(let v):
      if epoch.vtgSpeed == nil { epoch.vtgSpeed = v.speed }
      if epoch.vtgCourse == nil { epoch.vtgCourse = v.course }
    case .zda(let z):
      if epoch.date == nil { epoch.date = z.date }
    case .gst(let g):
      if epoch.latitudeSigma == nil, epoch.longitudeSigma == nil {
        epoch.latitudeSigma = g.latitudeSigma
        epoch.longitudeSigma = g.longitudeSigma
      }
    }
  }

  private mutating func learnCycleEnd(_ key: UInt32) {
    guard key != 0 else { return }
    if key == endCandidate {
      endStreak += 1
    } else {
      endCandidate = key
      endStreak = 1
    }
    if endStreak >= EpochAssembler.cycleEndConfirmations { cycleEnd = endCandidate }
  }

  private mutating func close(_ onFix: (Fix, Instant?) -> Void, onCycleEnd: Bool) {
    let e = epoch
    epoch = Epoch()
    if skiesFromNextCycle {
      skiesFromNextCycle = false
    } else if assemblesSkies, let newSky = skies.closeEpoch() {
      sky = newSky
      skyCount += 1
    }
    if !onCycleEnd { learnCycleEnd(e.lastKey) }
    guard let timeOfDay = e.time, e.hasStatus else { return }
    guard let date = resolveDate(e.date, timeOfDay) else {
      // Keep the latest undated epoch: the next epoch may bring the date (a log that starts
      // with the GGA of a cycle whose RMC came before it).
      if undated != nil { counters.undatedEpochs += 1 }
      undated = e
      return
    }
    if let u = undated, let uTime = u.time {
      undated = nil
      emit(u, on: EpochAssembler.date(of: uTime, near: date, at: timeOfDay), onFix)
    }
    emit(e, on: date, onFix)
  }

  private mutating func emit(_ e: Epoch, on date: CivilDate, _ onFix: (Fix, Instant?) -> Void) {
    guard let timeOfDay = e.time else { return }
    var time = timeOfDay.instant(on: date)
    var suspect = false
    switch EpochAssembler.rollover(time, reference: referenceTime) {
    case .none: break
    case .corrected(let moved):
      time = moved
      suspect = true
      counters.rolloverCorrections += 1
    case .refused: counters.rolloverRefused += 1
    }
    if let last = lastFixTime, time < last { counters.timeWentBackwards += 1 }
    lastFixTime = time
    counters.fixes += 1
    var fix = EpochAssembler.fix(from: e, time: time, dateSuspect: suspect)
    counters.implausibleValues += FixPlausibility.bound(&fix)
    if fix.coordinate == nil {
      lastDimension = nil
    } else {
      var dimension =
        e.fixDimension ?? e.gsaMode.flatMap({ $0 == .noFix ? nil : $0 }) ?? lastDimension ?? .twoD
      // A 3D solution has four unknowns (x, y, z, clock): fewer than four satellites
      // cannot give one, whatever altitude the receiver holds.
      if dimension == .threeD, let used = fix.satellitesUsed, used < 4 { dimension = .twoD }
      fix.mode = dimension
      lastDimension = dimension
    }
    onFix(fix, e.startKnown ? e.arrival : nil)
  }

  /// The epoch's date: its own, else the last known one across midnight, else the reference's.
  private mutating func resolveDate(_ own: CivilDate?, _ timeOfDay: TimeOfDay) -> CivilDate? {
    var date = own
    if date == nil, let last = lastDate {
      date = EpochAssembler.date(of: timeOfDay, near: last, at: lastDateTime)
    }
    if date == nil, let reference = referenceTime {
      date = EpochAssembler.date(of: timeOfDay, nearest: reference)
    }
    if let date {
      lastDate = date
      lastDateTime = timeOfDay
    }
    return date
  }

}
