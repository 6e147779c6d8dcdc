import LocCore

/// The TPV gpsd 3.22 sends for a receiver cycle, made from locd's fix of that cycle (docs/GPSD.md,
/// "TPV"): the members in gpsd's order and with gpsd's decimals, `status` from the fix's quality,
/// and what gpsd works out itself when the receiver does not say it (gpsd/libgpsd_core.c,
/// `gpsd_error_model()`, read to learn the rules; the code is ours): the error estimates from
/// the DOPs and from the cycle before, the geoid separation and magnetic variation from its
/// grids (`GeodesyGrid`), a climb from two altitudes and a speed from two positions. It keeps,
/// per device, what gpsd keeps of the previous cycle.
struct GpsdTPV {
  /// gpsd's 95 % range errors (`gpsd_error_model()`: H_UERE for epx and epy, V_UERE for epv,
  /// P_UERE for eph and sep), without and with DGPS (only status 2, as gpsd tests it).
  static let horizontalPerAxisDOP = (autonomous: 15.0, differential: 3.75)
  static let verticalPerVDOP = GpsdErrorEstimate.verticalPerVDOP
  static let positionPerDOP = GpsdErrorEstimate.horizontalPerHDOP
  /// gpsd's time error for every fix with a time (`ept`): half the resolution of a
  /// receiver's clock, a constant of gpsd's.
  static let timeError = 0.005

  /// What gpsd keeps of a device's previous cycle (its `oldfix`).
  struct Previous {
    var time: Instant
    var mode: FixMode
    var coordinate: Coordinate?
    var epx: Double?
    var epy: Double?
    var epv: Double?
    var altHAE: Double?
  }

  private var previous: [String: Previous] = [:]
  /// A device's last cycle when no TPV was made of it (nobody watched): kept as it came, and
  /// worked out only if the next TPV needs it, so a cycle nobody reads costs nothing here.
  private var unreported: [String: (fix: Fix, sky: Sky?)] = [:]

  /// A cycle of `device` that no one is sent: what gpsd keeps of it is kept for the next TPV.
  mutating func skip(_ fix: Fix, device: String, sky: Sky?) {
    unreported[device] = (fix, sky)
    previous[device] = nil
  }

  /// What gpsd keeps of a cycle (`report` works it out on the way; `skip` leaves it for here).
  private static func previous(of fix: Fix, sky: Sky?) -> Previous {
    let e = estimates(fix, sky: sky)
    return Previous(
      time: fix.time, mode: fix.coordinate == nil ? .noFix : fix.mode, coordinate: fix.coordinate, epx: e.epx,
      epy: e.epy, epv: e.epv, altHAE: e.altHAE)
  }

  /// gpsd's error estimates and ellipsoid altitude of a fix (none without a 2D or 3D position).
  private static func estimates(_ fix: Fix, sky: Sky?) -> Estimates {
    var e = Estimates()
    guard fix.mode >= .twoD, let c = fix.coordinate else { return e }
    let dgps = status(fix) == 2
    e.dilution = sky.flatMap(GpsdDilution.init)
    let axis = dgps ? horizontalPerAxisDOP.differential : horizontalPerAxisDOP.autonomous
    e.epx = e.dilution.map { $0.x * axis }
    e.epy = e.dilution.map { $0.y * axis }
    if fix.mode == .threeD, let vdop = fix.vdop ?? e.dilution?.vertical {
      e.epv = vdop * (dgps ? verticalPerVDOP.differential : verticalPerVDOP.autonomous)
    }
    e.separation = fix.geoidSeparation ?? GeodesyGrid.geoidSeparation(at: c)
    if let msl = fix.altitudeMSL?.value, let separation = e.separation { e.altHAE = msl + separation.value }
    return e
  }

  /// What `estimates` works out.
  private struct Estimates {
    var dilution: GpsdDilution? = nil
    var epx: Double? = nil
    var epy: Double? = nil
    var epv: Double? = nil
    var altHAE: Double? = nil
    var separation: Meters? = nil
  }

  /// gpsd's `status` for a fix of `quality` (gps.h STATUS_*: 1 a fix, 2 DGPS, 3 RTK fixed, 4
  /// RTK float, 5 dead reckoning, 7 time only or a surveyed position, 8 simulated, 9 PPS); 0
  /// without a position. gpsd writes it only from 2 on.
  static func status(_ fix: Fix) -> Int {
    guard fix.coordinate != nil else { return 0 }
    switch fix.quality {
    case nil, .gps?: return 1
    case .dgps?: return 2
    case .rtkFixed?: return 3
    case .rtkFloat?: return 4
    case .deadReckoning?: return 5
    case .manual?: return 7
    case .simulated?: return 8
    case .pps?: return 9
    }
  }

  /// The TPV of `fix`, a cycle of `device`, whose latest satellites are `sky`; `magneticVariation`
  /// is the receiver's own (RMC), if it sent one.
  mutating func report(_ fix: Fix, device: String, sky: Sky?) -> JSONObject {
    var o: JSONObject = ["class": .string("TPV"), "device": .string(device)]
    let status = GpsdTPV.status(fix)
    if status >= 2 { o["status"] = .int(status) }
    o["mode"] = .int(fix.mode.rawValue)
    o["time"] = .string(fix.time.iso8601(fractionDigits: 3))
    o["ept"] = .number(GpsdTPV.timeError)
    let old = previous[device] ?? unreported[device].map { GpsdTPV.previous(of: $0.fix, sky: $0.sky) }
    unreported[device] = nil
    let dt = old.map { fix.time.seconds(since: $0.time) } ?? 0
    let oldFix = old.flatMap { $0.mode >= .twoD && dt > 0 ? $0 : nil }
    let e = GpsdTPV.estimates(fix, sky: sky)
    let (epx, epy, epv, altHAE) = (e.epx, e.epy, e.epv, e.altHAE)
    if fix.mode >= .twoD, let c = fix.coordinate {
      let dgps = status == 2
      let hdop = fix.hdop ?? e.dilution?.horizontal
      let pdop = fix.pdop ?? e.dilution?.position
      let separation = e.separation
      o["lat"] = .number(GpsdReport.rounded(c.latitude.value, 9))
      o["lon"] = .number(GpsdReport.rounded(c.longitude.value, 9))
      if let msl = fix.altitudeMSL?.value {
        if let altHAE { o["altHAE"] = .number(GpsdReport.rounded(altHAE, 4)) }
        o["altMSL"] = .number(GpsdReport.rounded(msl, 4))
        o["alt"] = .number(GpsdReport.rounded(msl, 4))
      }
      if let epx { o["epx"] = .number(GpsdReport.rounded(epx, 3)) }
      if let epy { o["epy"] = .number(GpsdReport.rounded(epy, 3)) }
      if let epv { o["epv"] = .number(GpsdReport.rounded(epv, 3)) }
      let variation = GeodesyGrid.magneticDeclination(at: c)?.value
      if let track = fix.course?.value {
        o["track"] = .number(GpsdReport.rounded(track, 4))
        if let variation {
          o["magtrack"] = .number(GpsdReport.rounded(GpsdTPV.normalized(track + variation), 4))
        }
      }
      if let variation { o["magvar"] = .number(GpsdReport.rounded(variation, 1)) }
      // A receiver that sent no speed: gpsd's, from the distance since the previous fix.
      let speed =
        fix.speed?.value ?? oldFix?.coordinate.flatMap { c.ellipsoidDistance(to: $0).map { $0.value / dt } }
      if let speed { o["speed"] = .number(GpsdReport.rounded(speed, 3)) }
      if fix.mode == .threeD, let altHAE, let oldFix, oldFix.mode == .threeD, let before = oldFix.altHAE {
        o["climb"] = .number(GpsdReport.rounded((altHAE - before) / dt, 3))
      }
      if let oldFix, let epx, let epy {
        if let before = oldFix.coordinate {
          // The track error: half the angle the new fix's error subtends seen from the old one,
          // only when the fixes are further apart than that error.
          let opposite = max(epx, epy)
          if let adjacent = c.ellipsoidDistance(to: before)?.value, adjacent > opposite {
            let hypotenuse = (adjacent * adjacent + opposite * opposite).squareRoot()
            o["epd"] = .number(GpsdReport.rounded(2 * Maths.asin(opposite / hypotenuse) * 180 / .pi, 4))
          }
        }
        if let ox = oldFix.epx, let oy = oldFix.epy {
          o["eps"] = .number(GpsdReport.rounded((max(ox, oy) + max(epx, epy)) / dt, 2))
        }
      }
      if fix.mode == .threeD {
        if let oldFix, let before = oldFix.epv, let epv {
          o["epc"] = .number(GpsdReport.rounded((before + epv) / dt, 2))
        }
        if let separation { o["geoidSep"] = .number(GpsdReport.rounded(separation.value, 3)) }
      }
      let positionUERE = dgps ? GpsdTPV.positionPerDOP.differential : GpsdTPV.positionPerDOP.autonomous
      if let hdop, hdop > 0 {
        o["eph"] = .number(GpsdReport.rounded(hdop * positionUERE, 3))
      } else if let accuracy = fix.horizontalAccuracy {
        // No DOP at all (a gpsd source's TPV without one): locd's 68 % radius at 95 %.
        o["eph"] = .number(GpsdReport.rounded(accuracy.value * GpsdErrorEstimate.eph95Per68, 3))
      }
      if let pdop, pdop > 0 { o["sep"] = .number(GpsdReport.rounded(pdop * positionUERE, 3)) }
    }
    previous[device] = Previous(
      time: fix.time, mode: fix.coordinate == nil ? .noFix : fix.mode, coordinate: fix.coordinate, epx: epx,
      epy: epy, epv: epv, altHAE: altHAE)
    return o
  }

  /// `degrees` in 0..<360.
  static func normalized(_ degrees: Double) -> Double {
    var d = degrees.truncatingRemainder(dividingBy: 360)
    if d < 0 { d += 360 }
    return d
  }
}
