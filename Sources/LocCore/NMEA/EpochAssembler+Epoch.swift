/// The parts of `EpochAssembler` that hold no state across cycles: what one cycle said so
/// far (`Epoch`), and the pure steps from it to a `Fix` (its date across midnight, the
/// fix's fields).
extension EpochAssembler {
  // MARK: - One epoch

  /// What one cycle said so far.
  struct Epoch: Sendable {
    var time: TimeOfDay?
    var date: CivilDate?
    var lastKey: UInt32 = 0
    /// A sentence was added: `arrival` is the first one's.
    var begun = false
    /// When the epoch's first sentence arrived (the caller's clock), if it keeps one.
    var arrival: Instant?
    /// Whether that sentence began a cycle: the one before closed on its learned end.
    var startKnown = false
    /// An RMC, GGA, GNS or GLL was seen: the receiver stated its fix status.
    var hasStatus = false
    var coordinate: Coordinate?
    var coordinateRank = -1
    var quality: FixQuality?
    var altitudeMSL: Meters?
    var geoidSeparation: Meters?
    var altitudeRank = -1
    /// A GGA or GNS with a fix said 3D (with altitude) or 2D (without).
    var fixDimension: FixMode?
    var gsaMode: FixMode?
    var gsaUsed: Int?
    var reportedUsed: Int?
    var pdop: Double?
    var gsaHDOP: Double?
    var vdop: Double?
    var fixHDOP: Double?
    var rmcSpeed: MetersPerSecond?
    var rmcCourse: Degrees?
    var vtgSpeed: MetersPerSecond?
    var vtgCourse: Degrees?
    var latitudeSigma: Meters?
    var longitudeSigma: Meters?
    /// Largest GSV count per system slot (`NMEATalker.systemSlot`), -1 when none.
    var inView = SIMD8<Int32>(repeating: -1)
  }

  static func maxOptional(_ a: Int?, _ b: Int?) -> Int? {
    guard let a else { return b }
    guard let b else { return a }
    return max(a, b)
  }

  /// The date of `timeOfDay` given that `reference` fell on `date`, across midnight when the
  /// times of day are more than 12 hours apart.
  static func date(of timeOfDay: TimeOfDay, near date: CivilDate, at reference: TimeOfDay)
    -> CivilDate
  {
    let step = timeOfDay.microsecondsSinceMidnight - reference.microsecondsSinceMidnight
    let half = TimeOfDay.microsecondsPerDay / 2
    return step < -half ? date.adding(days: 1) : step > half ? date.adding(days: -1) : date
  }

  static func fix(from e: Epoch, time: Instant, dateSuspect: Bool) -> Fix {
    var inView: Int? = nil
    for slot in 0..<8 where e.inView[slot] >= 0 { inView = (inView ?? 0) + Int(e.inView[slot]) }
    let hdop = e.gsaHDOP ?? e.fixHDOP
    var fix = Fix(
      time: time, coordinate: nil, mode: .noFix,
      satellitesUsed: maxOptional(e.reportedUsed, e.gsaUsed),
      satellitesInView: inView,
      pdop: e.pdop, hdop: hdop, vdop: e.vdop, dateSuspect: dateSuspect)
    guard let coordinate = e.coordinate else { return fix }
    fix.coordinate = coordinate
    fix.quality = e.quality
    fix.altitudeMSL = e.altitudeMSL
    fix.geoidSeparation = e.geoidSeparation
    fix.mode = .twoD  // refined by the caller, which knows the previous epoch
    fix.speed = e.rmcSpeed ?? e.vtgSpeed
    fix.course = e.rmcCourse ?? e.vtgCourse
    // A GST σ of 0 is a field the receiver left empty, not a perfect fix: HDOP then.
    if let sLat = e.latitudeSigma, let sLon = e.longitudeSigma, sLat.value > 0, sLon.value > 0 {
      fix.horizontalAccuracy = HorizontalAccuracy.fromAxisSigmas(latitude: sLat, longitude: sLon)
    }
    if fix.horizontalAccuracy == nil, let hdop {
      fix.horizontalAccuracy = HorizontalAccuracy.fromHDOP(hdop, rangeError: userEquivalentRangeError)
    }
    return fix
  }
}
