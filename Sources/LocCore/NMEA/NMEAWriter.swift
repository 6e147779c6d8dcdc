/// Writes NMEA 0183 sentences from locd's fixes and skies (NMEA 0183 4.11 field layouts: RMC,
/// GGA, GSA, GSV, VTG), each with its checksum and CR LF: what the gpsd face sends to a client
/// that watches with `nmea` and what the NMEA pty streams (docs/GPSD.md). Talker `GP` for a
/// GPS-only sky, else `GN`; GSV per system with that system's talker.
public enum NMEAWriter {
  /// The sentences of one cycle: RMC, GGA, GSA, VTG from the fix, then the GSV groups of
  /// `sky` if given.
  public static func cycle(_ fix: Fix, sky: Sky?) -> [String] {
    let talker = sky.map(talker(for:)) ?? "GP"
    var out = [
      rmc(fix, talker: talker), gga(fix, sky: sky, talker: talker), gsa(fix, sky: sky, talker: talker),
    ]
    out.append(vtg(fix, talker: talker))
    if let sky { out += gsv(sky) }
    return out
  }

  /// `$..RMC`: time, status, position, speed (knots), course, date, mode.
  public static func rmc(_ fix: Fix, talker: String = "GP") -> String {
    let valid = fix.coordinate != nil && fix.mode != .noFix
    let (time, date) = timeAndDate(fix.time)
    var f = [time, valid ? "A" : "V"]
    f += position(fix.coordinate)
    f.append(fix.speed.map { decimal($0.value / knot, 3) } ?? "")
    f.append(fix.course.map { decimal($0.value, 2) } ?? "")
    f += [date, "", "", valid ? "A" : "N"]
    return sentence(talker + "RMC", f)
  }

  /// `$..GGA`: time, position, quality, satellites used, HDOP, altitude, geoid separation.
  /// A reader takes a GGA's fix only with satellites enough for it (gpsd and gpsdecode: under
  /// three is no fix, four or more with an altitude 3D), so a fix always says how many it used
  /// and its HDOP (`usedCount`, `hdop`), also when its source did not.
  public static func gga(_ fix: Fix, sky: Sky? = nil, talker: String = "GP") -> String {
    let (time, _) = timeAndDate(fix.time)
    var f = [time]
    f += position(fix.coordinate)
    let valid = fix.coordinate != nil && fix.mode != .noFix
    f.append(valid ? quality(fix.quality) : "0")
    f.append((valid ? usedCount(fix, sky: sky) : fix.satellitesUsed).map { twoDigits($0) } ?? "")
    f.append((valid ? hdop(fix) : fix.hdop).map { decimal($0, 2) } ?? "")
    f += [fix.altitudeMSL.map { decimal($0.value, 1) } ?? "", fix.altitudeMSL == nil ? "" : "M"]
    f += [fix.geoidSeparation.map { decimal($0.value, 1) } ?? "", fix.geoidSeparation == nil ? "" : "M"]
    f += ["", ""]
    return sentence(talker + "GGA", f)
  }

  /// The satellites a fix used, for GGA: its own count; else the sky's used flags; else, with
  /// neither (a gpsd source whose SKY marks none, a position that is not a receiver's), the
  /// fewest its dimension needs (NMEA readers take no fix from fewer): 3 for 2D, 4 for 3D.
  static func usedCount(_ fix: Fix, sky: Sky?) -> Int {
    if let n = fix.satellitesUsed, n > 0 { return n }
    if let used = sky?.summary.used, used > 0 { return used }
    return fix.mode == .threeD ? 4 : 3
  }

  /// The HDOP a fix is written with: its own; else the one its accuracy stands for in gpsd's
  /// error model, so that gpsd reading it reports the `eph` the fix came with (eph = HDOP ×
  /// 19 m at 95 %, 4.75 m with DGPS; locd's accuracy is a 68 % radius, × 1.6214 at 95 %);
  /// nil with neither.
  static func hdop(_ fix: Fix) -> Double? {
    if let h = fix.hdop, h > 0 { return h }
    guard let accuracy = fix.horizontalAccuracy?.value else { return nil }
    let eph = accuracy * HorizontalAccuracy.radius95PerSigma / HorizontalAccuracy.radius68PerSigma
    return eph / (fix.quality == .dgps ? 4.75 : 19)
  }

  /// `$..GSA`: automatic mode, fix dimension, up to 12 satellites used, PDOP, HDOP, VDOP.
  public static func gsa(_ fix: Fix, sky: Sky?, talker: String = "GP") -> String {
    var used = (sky?.satellites ?? []).filter(\.used).map { nmeaNumber($0) }
    var seen = Set<Int>()
    used = used.filter { seen.insert($0).inserted }
    var f = ["A", "\(fix.mode.rawValue)"]
    for i in 0..<12 { f.append(i < used.count ? twoDigits(used[i]) : "") }
    f += [fix.pdop.map { decimal($0, 2) } ?? "", fix.hdop.map { decimal($0, 2) } ?? ""]
    f.append(fix.vdop.map { decimal($0, 2) } ?? "")
    return sentence(talker + "GSA", f)
  }

  /// `$..VTG`: course true, course magnetic (empty), speed in knots and km/h, mode.
  public static func vtg(_ fix: Fix, talker: String = "GP") -> String {
    var f = [fix.course.map { decimal($0.value, 2) } ?? "", "T", "", "M"]
    f += [fix.speed.map { decimal($0.value / knot, 3) } ?? "", "N"]
    f += [fix.speed.map { decimal($0.value * 3.6, 3) } ?? "", "K"]
    f.append(fix.coordinate == nil || fix.mode == .noFix ? "N" : "A")
    return sentence(talker + "VTG", f)
  }

  /// `$..GSV` groups: four satellites a sentence, one group per system.
  public static func gsv(_ sky: Sky) -> [String] {
    var out: [String] = []
    var bySystem: [GNSSConstellation: [Satellite]] = [:]
    var seen = Set<Int64>()
    for s in sky.satellites where seen.insert(Int64(s.constellation.rawValue) << 32 | Int64(s.svid)).inserted
    {
      bySystem[s.constellation, default: []].append(s)
    }
    for system in bySystem.keys.sorted() {
      let list = bySystem[system]!
      let count = (list.count + 3) / 4
      for n in 0..<count {
        var f = ["\(count)", "\(n + 1)", twoDigits(list.count)]
        for s in list[(n * 4)..<min(list.count, n * 4 + 4)] {
          f.append(twoDigits(nmeaNumber(s)))
          f.append(s.elevation.map { twoDigits(Int($0.rounded())) } ?? "")
          f.append(s.azimuth.map { threeDigits(Int($0.rounded()) % 360) } ?? "")
          f.append(s.signal.map { twoDigits(Int($0.rounded())) } ?? "")
        }
        out.append(sentence(gsvTalker(system) + "GSV", f))
      }
    }
    return out
  }

  /// One knot in metres per second (1852 m an hour).
  public static let knot = 1852.0 / 3600.0

  /// A sentence from its address and fields: `$` address `,` fields `*` checksum CR LF.
  public static func sentence(_ address: String, _ fields: [String]) -> String {
    let body = ([address] + fields).joined(separator: ",")
    var sum: UInt8 = 0
    for b in body.utf8 { sum ^= b }
    return "$" + body + "*" + hex(sum) + "\r\n"
  }

  static func hex(_ b: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(b >> 4)], digits[Int(b & 0x0F)]])
  }

  /// `hhmmss.ss` and `ddmmyy` of an instant, in UTC.
  static func timeAndDate(_ t: Instant) -> (String, String) {
    let us = t.microsecondsSinceEpoch
    let days = us >= 0 ? us / 86_400_000_000 : -((-us + 86_399_999_999) / 86_400_000_000)
    let date = CivilDate(daysSinceEpoch: Int(days))
    let ofDay = us - days * 86_400_000_000
    let centis = Int(ofDay / 10_000)
    let secs = centis / 100
    let time =
      twoDigits(secs / 3600) + twoDigits(secs / 60 % 60) + twoDigits(secs % 60) + "."
      + twoDigits(centis % 100)
    return (time, twoDigits(date.day) + twoDigits(date.month) + twoDigits(date.year % 100))
  }

  /// Latitude `ddmm.mmmmmmm`,N/S and longitude `dddmm.mmmmmmm`,E/W: seven decimals of a
  /// minute are 0.2 mm, finer than any fix (and than the 1e-7 degrees clients compare).
  static func position(_ c: Coordinate?) -> [String] {
    guard let c else { return ["", "", "", ""] }
    func part(_ value: Double, width: Int) -> String {
      let a = abs(value)
      var deg = Int(a)
      var minutes = (a - Double(deg)) * 60
      if (minutes * 1e7).rounded() >= 60e7 {
        deg += 1
        minutes = 0
      }
      let d = String(deg)
      let m = decimal(minutes, 7)
      let mPadded = minutes < 10 ? "0" + m : m
      return String(repeating: "0", count: max(0, width - d.count)) + d + mPadded
    }
    return [
      part(c.latitude.value, width: 2), c.latitude.value < 0 ? "S" : "N",
      part(c.longitude.value, width: 3), c.longitude.value < 0 ? "W" : "E",
    ]
  }

  /// The GGA quality indicator (NMEA 0183 GGA field 6).
  static func quality(_ q: FixQuality?) -> String {
    switch q {
    case .dgps: return "2"
    case .pps: return "3"
    case .rtkFixed: return "4"
    case .rtkFloat: return "5"
    case .deadReckoning: return "6"
    case .manual: return "7"
    case .simulated: return "8"
    case .gps, nil: return "1"
    }
  }

  /// The talker of a sky: `GP` when every satellite is GPS (or SBAS), else `GN`.
  static func talker(for sky: Sky) -> String {
    sky.satellites.allSatisfy { $0.constellation == .gps || $0.constellation == .sbas } ? "GP" : "GN"
  }

  /// The GSV talker of a system (NMEA 0183 4.11 talker ids).
  static func gsvTalker(_ system: GNSSConstellation) -> String {
    switch system {
    case .gps, .sbas: return "GP"
    case .glonass: return "GL"
    case .galileo: return "GA"
    case .beidou: return "GB"
    case .qzss: return "GQ"
    case .navic: return "GI"
    case .imes: return "GN"
    }
  }

  /// The satellite's number as NMEA 0183 numbers it: GPS 1-32, SBAS 33-64 (PRN − 87), GLONASS
  /// 65-96, the others their number within the system (the talker says which).
  static func nmeaNumber(_ s: Satellite) -> Int {
    switch s.constellation {
    case .gps: return s.svid
    case .sbas: return s.svid >= 120 ? s.svid - 87 : s.svid
    case .glonass: return s.svid + 64
    default: return s.svid
    }
  }

  static func twoDigits(_ n: Int) -> String { n < 10 && n >= 0 ? "0\(n)" : "\(n)" }
  static func threeDigits(_ n: Int) -> String { n < 10 ? "00\(n)" : n < 100 ? "0\(n)" : "\(n)" }

  /// `value` with exactly `decimals` places, rounded half away from zero.
  static func decimal(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let k = (abs(value) * scale).rounded()
    let whole = Int64(k / scale)
    var frac = String(Int64(k - Double(whole) * scale))
    frac = String(repeating: "0", count: max(0, decimals - frac.count)) + frac
    let sign = value < 0 && k != 0 ? "-" : ""
    return decimals == 0 ? sign + String(whole) : sign + String(whole) + "." + frac
  }
}
