import LocCore

/// The fix object of `location` events (docs/PROTOCOL.md, "fix"): gpsd TPV names (`time`,
/// `mode`, `lat`, `lon`, `altMSL`, `speed`, `track`) and locd's own (`accuracy`, the 68 %
/// radius, which is not gpsd's 95 % `eph`), values as decoded (not rounded). Missing values
/// are null.
public struct FixView: WireCodable {
  /// The epoch's UTC time, to the millisecond.
  public var time: Instant
  /// No fix, 2D or 3D.
  public var mode: FixMode
  /// The position, if the receiver has one.
  public var coordinate: Coordinate?
  /// Altitude above mean sea level (`altMSL`).
  public var altitudeMSL: Meters?
  /// Speed over ground.
  public var speed: MetersPerSecond?
  /// Course over ground, degrees from true north (`track`).
  public var track: Degrees?
  /// Horizontal accuracy, the 68 % radius (`accuracy`).
  public var horizontalAccuracy: Meters?
  /// How the position was obtained; a newer locd may name more kinds.
  public var quality: OpenEnum<FixQuality>?
  /// Satellites used in the solution.
  public var satellitesUsed: Int?
  /// Satellites in view.
  public var satellitesInView: Int?
  /// Horizontal dilution of precision.
  public var hdop: Double?

  /// The wire form of `f`.
  public init(_ f: Fix) {
    time = WireFormat.truncate(f.time, 3)
    mode = f.mode
    coordinate = f.coordinate
    altitudeMSL = f.altitudeMSL
    speed = f.speed
    track = f.course
    horizontalAccuracy = f.horizontalAccuracy
    quality = f.quality.map(OpenEnum.known)
    satellitesUsed = f.satellitesUsed
    satellitesInView = f.satellitesInView
    hdop = f.hdop
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    time = try o.instant("time")
    mode = try fixMode(o)
    coordinate = o.value("lat") == nil && o.value("lon") == nil ? nil : try o.coordinate()
    altitudeMSL = try o.optionalMeters("altMSL")
    speed = try o.optionalNumber("speed").map { MetersPerSecond($0) }
    track = try o.optionalNumber("track").map { Degrees($0) }
    horizontalAccuracy = try o.optionalMeters("accuracy")
    quality = try o.optionalOpen("quality")
    satellitesUsed = try o.optionalInt("satellitesUsed")
    satellitesInView = try o.optionalInt("satellitesInView")
    hdop = try o.optionalNumber("hdop")
  }

  public var json: JSON { writtenJSON }
}

// Written straight to the wire in every location event (one encoding a fix, shared by all
// subscribers), without the tree in between.
extension FixView: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    s.member("time", WireFormat.time(time, 3))
    s.member("mode", .int(mode.rawValue))
    s.member("lat", .optional(coordinate?.latitude.value))
    s.member("lon", .optional(coordinate?.longitude.value))
    s.member("altMSL", WireFormat.meters(altitudeMSL))
    s.member("speed", .optional(speed?.value))
    s.member("track", .optional(track?.value))
    s.member("accuracy", WireFormat.meters(horizontalAccuracy))
    s.member("quality", .optional(quality?.word))
    s.member("satellitesUsed", .optional(satellitesUsed))
    s.member("satellitesInView", .optional(satellitesInView))
    s.member("hdop", .optional(hdop))
    s.closeObject()
  }
}

/// The latest fix's quality in `status` (`fix`): mode, quality, satellites, accuracy, HDOP,
/// time, and since 1.2 its altitude, speed and course when the receiver gave them.
public struct FixSummaryView: WireCodable {
  /// No fix, 2D or 3D.
  public var mode: FixMode
  /// How the position was obtained; a newer locd may name more kinds.
  public var quality: OpenEnum<FixQuality>?
  /// Satellites used.
  public var satellitesUsed: Int?
  /// Satellites in view.
  public var satellitesInView: Int?
  /// Horizontal accuracy, to 0.1 m.
  public var accuracy: Meters?
  /// Horizontal dilution of precision.
  public var hdop: Double?
  /// The fix's UTC time, to the millisecond.
  public var time: Instant
  /// Altitude above mean sea level (`altMSL`), to 0.1 m.
  public var altitudeMSL: Meters?
  /// Speed over ground, to 0.01 m/s.
  public var speed: MetersPerSecond?
  /// Course over ground, degrees from true north (`track`), to 0.1°.
  public var track: Degrees?

  /// The wire form of `f`.
  public init(_ f: FixSummary) {
    mode = f.mode
    quality = f.quality.map(OpenEnum.known)
    satellitesUsed = f.satellitesUsed
    satellitesInView = f.satellitesInView
    accuracy = f.accuracy.map(WireFormat.radius)
    hdop = f.hdop
    time = WireFormat.truncate(f.time, 3)
    altitudeMSL = f.altitudeMSL.map(WireFormat.tenths)
    speed = f.speed.map { MetersPerSecond(WireFormat.round($0.value, 2)) }
    track = f.course.map { Degrees(WireFormat.round($0.value, 1)) }
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    mode = try fixMode(o)
    quality = try o.optionalOpen("quality")
    satellitesUsed = try o.optionalInt("satellitesUsed")
    satellitesInView = try o.optionalInt("satellitesInView")
    accuracy = try o.optionalMeters("accuracy")
    hdop = try o.optionalNumber("hdop")
    time = try o.instant("time")
    altitudeMSL = try o.optionalMeters("altMSL")
    speed = try o.optionalNumber("speed").map { MetersPerSecond($0) }
    track = try o.optionalNumber("track").map { Degrees($0) }
  }

  public var json: JSON { writtenJSON }
}

extension FixSummaryView: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    s.member("mode", .int(mode.rawValue))
    s.member("quality", .optional(quality?.word))
    s.member("satellitesUsed", .optional(satellitesUsed))
    s.member("satellitesInView", .optional(satellitesInView))
    s.member("accuracy", WireFormat.meters(accuracy))
    s.member("hdop", .optional(hdop))
    s.member("time", WireFormat.time(time, 3))
    s.member("altMSL", WireFormat.meters(altitudeMSL))
    s.member("speed", .optional(speed?.value))
    s.member("track", .optional(track?.value))
    s.closeObject()
  }
}

/// The `mode` member: 1 no fix, 2 2D, 3 3D (gpsd TPV).
private func fixMode(_ o: WireObject) throws(WireDecodingError) -> FixMode {
  let n = try o.int("mode")
  guard let mode = FixMode(rawValue: n) else { throw o.error("mode", "must be 1, 2 or 3, got \(n)") }
  return mode
}
