extension NMEASentence {
  /// Checks and decodes one line (`$GPRMC,...*hh`, without its line terminator; trailing
  /// spaces are ignored). Works in place on the bytes: no allocation.
  ///
  /// Order of checks: a line with a `*hh` checksum must match it (XOR of the bytes between
  /// `$`/`!` and `*`); a proprietary sentence (`$P...`) is `.proprietary`, with or without
  /// a checksum; any other sentence without one is `.badChecksum` (NMEA 0183 makes it
  /// mandatory); then the address must be two talker letters and a three-letter type.
  ///
  /// `satellites: false` leaves GSV's satellite blocks and GSA's ids unread (empty), for a
  /// reader that wants only fixes: reading them is most of a GSV's cost, and GSA counts its
  /// used satellites without them.
  public static func parse(_ line: UnsafeRawBufferPointer, satellites: Bool = true) -> NMEAParseResult {
    guard let base = line.baseAddress else { return .malformed(NMEAFieldError(field: 0, reason: .missing)) }
    var n = line.count
    while n > 0, base.load(fromByteOffset: n - 1, as: UInt8.self) == 0x20 { n -= 1 }
    guard n >= 2 else { return .malformed(NMEAFieldError(field: 0, reason: n == 0 ? .missing : .malformed)) }
    let start = base.load(as: UInt8.self)
    guard start == 0x24 || start == 0x21 else {
      return .malformed(NMEAFieldError(field: 0, reason: .malformed))
    }
    let proprietary = start == 0x24 && base.load(fromByteOffset: 1, as: UInt8.self) == 0x50  // "$P"

    // The checksum: "*hh" at the very end.
    var payloadEnd = n
    if n >= 4, base.load(fromByteOffset: n - 3, as: UInt8.self) == 0x2A,  // *
      let high = hexValue(base.load(fromByteOffset: n - 2, as: UInt8.self)),
      let low = hexValue(base.load(fromByteOffset: n - 1, as: UInt8.self))
    {
      payloadEnd = n - 3
      guard xorChecksum(base, from: 1, to: payloadEnd) == high << 4 | low else { return .badChecksum }
    } else {
      return proprietary ? .proprietary : .badChecksum
    }
    if proprietary { return .proprietary }

    // The address: two talker letters and three type letters, then ',' or the end.
    guard payloadEnd >= 6, payloadEnd == 6 || base.load(fromByteOffset: 6, as: UInt8.self) == 0x2C else {
      return payloadEnd >= 6 && isAddressByte(base.load(fromByteOffset: 6, as: UInt8.self))
        ? .unsupported : .malformed(NMEAFieldError(field: 0, reason: .malformed))
    }
    for i in 1...5 where !isAddressByte(base.load(fromByteOffset: i, as: UInt8.self)) {
      return .malformed(NMEAFieldError(field: 0, reason: .malformed))
    }
    if start == 0x21 { return .unsupported }  // AIS and other encapsulated sentences
    let talker = NMEATalker(
      base.load(fromByteOffset: 1, as: UInt8.self), base.load(fromByteOffset: 2, as: UInt8.self))
    let type =
      UInt32(base.load(fromByteOffset: 3, as: UInt8.self)) << 16
      | UInt32(base.load(fromByteOffset: 4, as: UInt8.self)) << 8
      | UInt32(base.load(fromByteOffset: 5, as: UInt8.self))
    var fields = NMEAFieldReader(line, start: 7, end: payloadEnd)
    do {
      let content: Content
      switch type {
      case SentenceType.rmc: content = .rmc(try parseRMC(&fields))
      case SentenceType.gga: content = .gga(try parseGGA(&fields))
      case SentenceType.gll: content = .gll(try parseGLL(&fields))
      case SentenceType.gns: content = .gns(try parseGNS(&fields))
      case SentenceType.gsa: content = .gsa(try satellites ? parseGSA(&fields) : parseGSACount(&fields))
      case SentenceType.gsv: content = .gsv(try parseGSV(&fields, blocks: satellites))
      case SentenceType.vtg: content = .vtg(try parseVTG(&fields))
      case SentenceType.zda: content = .zda(try parseZDA(&fields))
      case SentenceType.gst: content = .gst(try parseGST(&fields))
      default: return .unsupported
      }
      return .sentence(NMEASentence(talker: talker, content: content))
    } catch {
      return .malformed(error)
    }
  }

  /// The UTC time (and date, for RMC and ZDA) carried by one line, for pacing a replay;
  /// `nil` when the line is not a valid sentence with a time.
  public static func timeOfDay(_ line: UnsafeRawBufferPointer) -> (time: TimeOfDay, date: CivilDate?)? {
    guard case .sentence(let s) = parse(line), let time = s.time else { return nil }
    switch s.content {
    case .rmc(let r): return (time, r.date)
    case .zda(let z): return (time, z.date)
    default: return (time, nil)
    }
  }

  /// Three-letter sentence types packed big-endian into the low 24 bits.
  @usableFromInline enum SentenceType {
    static let rmc: UInt32 = 0x52_4D43
    static let gga: UInt32 = 0x47_4741
    static let gll: UInt32 = 0x47_4C4C
    static let gns: UInt32 = 0x47_4E53
    static let gsa: UInt32 = 0x47_5341
    static let gsv: UInt32 = 0x47_5356
    static let vtg: UInt32 = 0x56_5447
    static let zda: UInt32 = 0x5A_4441
    static let gst: UInt32 = 0x47_5354
  }

  @inline(__always) static func isAddressByte(_ b: UInt8) -> Bool {
    (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39)
  }

  @inline(__always) static func hexValue(_ b: UInt8) -> UInt8? {
    switch b {
    case 0x30...0x39: return b - 0x30
    case 0x41...0x46: return b - 0x37
    case 0x61...0x66: return b - 0x57
    default: return nil
    }
  }

  /// XOR of the bytes in `from ..< to`, eight at a time (XOR is associative, so the lanes
  /// fold together at the end).
  @inline(__always) static func xorChecksum(_ p: UnsafeRawPointer, from: Int, to: Int) -> UInt8 {
    var wide: UInt64 = 0
    var i = from
    while i + 8 <= to {
      wide ^= p.loadUnaligned(fromByteOffset: i, as: UInt64.self)
      i += 8
    }
    wide ^= wide >> 32
    wide ^= wide >> 16
    wide ^= wide >> 8
    var sum = UInt8(truncatingIfNeeded: wide)
    while i < to {
      sum ^= p.load(fromByteOffset: i, as: UInt8.self)
      i += 1
    }
    return sum
  }

  // MARK: - Field helpers

  @inline(__always) static func coordinate(
    _ lat: NMEAField, _ ns: NMEAField, _ lon: NMEAField, _ ew: NMEAField
  ) throws(NMEAFieldError) -> Coordinate {
    guard let la = try lat.angle(hemisphere: ns, positive: 0x4E, negative: 0x53, limit: 90) else {
      throw NMEAFieldError(field: lat.number, reason: .missing)
    }
    guard let lo = try lon.angle(hemisphere: ew, positive: 0x45, negative: 0x57, limit: 180) else {
      throw NMEAFieldError(field: lon.number, reason: .missing)
    }
    guard let c = Coordinate(lat: la, lon: lo) else {
      throw NMEAFieldError(field: lat.number, reason: .outOfRange)
    }
    return c
  }

  @inline(__always) static func mode(_ f: NMEAField) throws(NMEAFieldError) -> NMEAModeIndicator? {
    guard let c = try f.character() else { return nil }
    guard let m = NMEAModeIndicator(rawValue: c) else {
      throw NMEAFieldError(field: f.number, reason: .malformed)
    }
    return m
  }

  /// `A` is true, `V` false; empty is `nil`.
  @inline(__always) static func status(_ f: NMEAField) throws(NMEAFieldError) -> Bool? {
    guard let c = try f.character() else { return nil }
    switch c {
    case 0x41: return true
    case 0x56: return false
    default: throw NMEAFieldError(field: f.number, reason: .malformed)
    }
  }

  /// A DOP; receivers send 0 (and some 0.00) for "unknown", so 0 is missing.
  @inline(__always) static func dop(_ f: NMEAField) throws(NMEAFieldError) -> Double? {
    guard let v = try f.nonNegativeDecimal(), v > 0 else { return nil }
    return v
  }

  @inline(__always) static func course(_ f: NMEAField) throws(NMEAFieldError) -> Degrees? {
    guard let v = try f.decimal() else { return nil }
    guard v >= 0, v <= 360 else { throw NMEAFieldError(field: f.number, reason: .outOfRange) }
    return Degrees(v)
  }

  /// A length whose unit field, when present, must say metres.
  @inline(__always) static func meters(_ f: NMEAField, unit: NMEAField) throws(NMEAFieldError) -> Meters? {
    guard let v = try f.decimal() else { return nil }
    if let u = try unit.character(), u != 0x4D {
      throw NMEAFieldError(field: unit.number, reason: .malformed)
    }
    return Meters(v)
  }

  // MARK: - Sentences

  static func parseRMC(_ r: inout NMEAFieldReader) throws(NMEAFieldError) -> RMC {
    let time = try r.next().timeOfDay()
    let statusField = r.next()
    let lat = r.next()
    let ns = r.next()
    let lon = r.next()
    let ew = r.next()
    let speedField = r.next()
    let courseField = r.next()
    let date = try r.next().date()
    r.skip(2)  // magnetic variation and its direction
    let modeIndicator = try mode(r.next())
    let nav = try r.next().character()
    let valid = try status(statusField) == true && modeIndicator != .noFix
    var coordinate: Coordinate? = nil
    var speed: MetersPerSecond? = nil
    var heading: Degrees? = nil
    if valid {
      coordinate = try self.coordinate(lat, ns, lon, ew)
      speed = try speedField.nonNegativeDecimal().map { MetersPerSecond(knots: $0) }
      heading = try course(courseField)
    }
    return RMC(
      time: time, valid: valid, coordinate: coordinate, speed: speed, course: heading, date: date,
      mode: modeIndicator, navigationalStatus: nav)
  }

  static func parseGGA(_ r: inout NMEAFieldReader) throws(NMEAFieldError) -> GGA {
    let time = try r.next().timeOfDay()
    let lat = r.next()
    let ns = r.next()
    let lon = r.next()
    let ew = r.next()
    let qualityField = r.next()
    let used = try r.next().unsignedInteger()
    let hdop = try dop(r.next())
    let altitude = r.next()
    let altitudeUnit = r.next()
    let separation = r.next()
    let separationUnit = r.next()
    // GGA quality indicator (NMEA 0183 4.11, GGA field 6): 0 invalid, 1 GPS, 2 DGPS, 3 PPS,
    // 4 RTK fixed, 5 RTK float, 6 estimated, 7 manual, 8 simulator.
    var quality: FixQuality? = nil
    if let q = try qualityField.unsignedInteger() {
      switch q {
      case 0: quality = nil
      case 1: quality = .gps
      case 2: quality = .dgps
      case 3: quality = .pps
      case 4: quality = .rtkFixed
      case 5: quality = .rtkFloat
      case 6: quality = .deadReckoning
      case 7: quality = .manual
      case 8: quality = .simulated
      default: throw NMEAFieldError(field: qualityField.number, reason: .outOfRange)
      }
    }
    guard quality != nil else {
      return GGA(
        time: time, coordinate: nil, quality: nil, satellitesUsed: used, hdop: hdop, altitudeMSL: nil,
        geoidSeparation: nil)
    }
    return GGA(
      time: time, coordinate: try coordinate(lat, ns, lon, ew), quality: quality, satellitesUsed: used,
      hdop: hdop,
      altitudeMSL: try meters(altitude, unit: altitudeUnit),
      geoidSeparation: try meters(separation, unit: separationUnit))
  }

  static func parseGLL(_ r: inout NMEAFieldReader) throws(NMEAFieldError) -> GLL {
    let lat = r.next()
    let ns = r.next()
    let lon = r.next()
    let ew = r.next()
    let time = try r.next().timeOfDay()
    let ok = try status(r.next())
    let modeIndicator = try mode(r.next())
    let valid = ok == true && modeIndicator != .noFix
    return GLL(
      time: time, valid: valid, coordinate: valid ? try coordinate(lat, ns, lon, ew) : nil,
      mode: modeIndicator)
  }

  /// Mode letters from best to worst, for picking the best system's mode in GNS.
  static func rank(_ m: NMEAModeIndicator) -> Int {
    switch m {
    case .rtkFixed: return 8
    case .rtkFloat: return 7
    case .precise: return 6
    case .differential: return 5
    case .autonomous: return 4
    case .estimated: return 3
    case .manual: return 2
    case .simulator: return 1
    case .noFix: return 0
    }
  }

  static func parseGNS(_ r: inout NMEAFieldReader) throws(NMEAFieldError) -> GNS {
    let time = try r.next().timeOfDay()
    let lat = r.next()
    let ns = r.next()
    let lon = r.next()
    let ew = r.next()
    let modes = r.next()
    var best: NMEAModeIndicator? = nil
    for i in 0..<modes.bytes.count {
      guard let m = NMEAModeIndicator(rawValue: modes.bytes[i]) else {
        throw NMEAFieldError(field: modes.number, reason: .malformed)
      }
      if best.map({ rank(m) > rank($0) }) ?? true { best = m }
    }
    let used = try r.next().unsignedInteger()
    let hdop = try dop(r.next())
    let altitude = r.next()
    let separation = r.next()
    r.skip(2)  // age of differential data, station id
    let nav = try r.next().character()
    guard let best, best.hasFix else {
      return GNS(
        time: time, coordinate: nil, mode: best, satellitesUsed: used, hdop: hdop, altitudeMSL: nil,
        geoidSeparation: nil, navigationalStatus: nav)
    }
    return GNS(
      time: time, coordinate: try coordinate(lat, ns, lon, ew), mode: best, satellitesUsed: used, hdop: hdop,
      altitudeMSL: try altitude.decimal().map { Meters($0) },
      geoidSeparation: try separation.decimal().map { Meters($0) }, navigationalStatus: nav)
  }

  static func parseVTG(_ r: inout NMEAFieldReader) throws(NMEAFieldError) -> VTG {
    let heading = try course(r.next())
    r.skip(3)  // 'T', magnetic course, 'M'
    let knots = try r.next().nonNegativeDecimal()
    r.skip(1)  // 'N'
    let kmh = try r.next().nonNegativeDecimal()
    r.skip(1)  // 'K'
    let modeIndicator = try mode(r.next())
    if modeIndicator == .noFix { return VTG(course: nil, speed: nil, mode: modeIndicator) }
    let speed = knots.map { MetersPerSecond(knots: $0) } ?? kmh.map { MetersPerSecond(kilometersPerHour: $0) }
    return VTG(course: heading, speed: speed, mode: modeIndicator)
  }

  static func parseZDA(_ r: inout NMEAFieldReader) throws(NMEAFieldError) -> ZDA {
    let time = try r.next().timeOfDay()
    let dayField = r.next()
    let monthField = r.next()
    let yearField = r.next()
    let day = try dayField.unsignedInteger()
    let month = try monthField.unsignedInteger()
    let year = try yearField.unsignedInteger()
    guard let day, let month, let year else {
      if day == nil, month == nil, year == nil { return ZDA(time: time, date: nil) }
      throw NMEAFieldError(field: day == nil ? 2 : month == nil ? 3 : 4, reason: .missing)
    }
    guard yearField.bytes.count == 4, let date = CivilDate(year: year, month: month, day: day) else {
      throw NMEAFieldError(
        field: yearField.bytes.count == 4 ? dayField.number : yearField.number, reason: .outOfRange)
    }
    return ZDA(time: time, date: date)
  }

  static func parseGST(_ r: inout NMEAFieldReader) throws(NMEAFieldError) -> GST {
    let time = try r.next().timeOfDay()
    r.skip(4)  // RMS of pseudorange residuals, error ellipse axes and orientation
    let lat = try r.next().nonNegativeDecimal().map { Meters($0) }
    let lon = try r.next().nonNegativeDecimal().map { Meters($0) }
    let alt = try r.next().nonNegativeDecimal().map { Meters($0) }
    return GST(time: time, latitudeSigma: lat, longitudeSigma: lon, altitudeSigma: alt)
  }
}
