/// Fix dimension, as reported by the receiver (NMEA GSA mode / gpsd TPV `mode`).
public enum FixMode: Int, Sendable, Hashable, Comparable {
  /// The receiver has no position.
  case noFix = 1
  /// Latitude and longitude only.
  case twoD = 2
  /// Latitude, longitude and altitude.
  case threeD = 3
  public static func < (a: FixMode, b: FixMode) -> Bool { a.rawValue < b.rawValue }
}

/// How the position was obtained (NMEA GGA quality indicator / mode indicator).
public enum FixQuality: String, Sendable, Hashable {
  /// Autonomous GNSS fix.
  case gps
  /// Differential GNSS (SBAS, DGPS).
  case dgps
  /// Precise Positioning Service.
  case pps
  /// Real-time kinematic, fixed integers.
  case rtkFixed = "rtk-fixed"
  /// Real-time kinematic, float solution.
  case rtkFloat = "rtk-float"
  /// Dead reckoning (estimated).
  case deadReckoning = "dead-reckoning"
  /// Manually entered position.
  case manual
  /// Simulator output: not a real position.
  case simulated
}

/// One receiver epoch turned into a fix: everything locd knows about one instant.
/// Missing values are `nil`, never NaN or 0.
public struct Fix: Hashable, Sendable {
  /// UTC time of the epoch.
  public var time: Instant
  /// Position, when the receiver has one.
  public var coordinate: Coordinate?
  /// Fix dimension.
  public var mode: FixMode
  /// How the position was obtained.
  public var quality: FixQuality?
  /// Altitude above mean sea level.
  public var altitudeMSL: Meters?
  /// Geoid separation (height of the geoid above the WGS84 ellipsoid).
  public var geoidSeparation: Meters?
  /// Speed over ground.
  public var speed: MetersPerSecond?
  /// Course over ground, true north.
  public var course: Degrees?
  /// Horizontal accuracy: the radius of the circle around `coordinate` that holds the true
  /// position with 68 % probability, as Core Location's and Android's `horizontalAccuracy`
  /// mean it. Every source converts to it (`HorizontalAccuracy`); docs/NMEA.md says how.
  public var horizontalAccuracy: Meters?
  /// Satellites used in the solution.
  public var satellitesUsed: Int?
  /// Satellites in view.
  public var satellitesInView: Int?
  /// Position dilution of precision (unitless).
  public var pdop: Double?
  /// Horizontal dilution of precision (unitless).
  public var hdop: Double?
  /// Vertical dilution of precision (unitless).
  public var vdop: Double?
  /// The date came from a receiver suspected of the GPS week-rollover bug.
  public var dateSuspect: Bool
  /// The values the decoder found beyond what a receiver can give (`FixPlausibility`):
  /// dropped from this fix or raised to a floor. Empty for nearly every fix; the engine
  /// records them for `status` and keeps the fix without them.
  public var outOfBounds: [OutOfBounds] = []

  /// A fix with only the required fields; the rest default to missing.
  public init(
    time: Instant, coordinate: Coordinate?, mode: FixMode, quality: FixQuality? = nil,
    altitudeMSL: Meters? = nil, geoidSeparation: Meters? = nil, speed: MetersPerSecond? = nil,
    course: Degrees? = nil, horizontalAccuracy: Meters? = nil, satellitesUsed: Int? = nil,
    satellitesInView: Int? = nil, pdop: Double? = nil, hdop: Double? = nil, vdop: Double? = nil,
    dateSuspect: Bool = false
  ) {
    self.time = time
    self.coordinate = coordinate
    self.mode = mode
    self.quality = quality
    self.altitudeMSL = altitudeMSL
    self.geoidSeparation = geoidSeparation
    self.speed = speed
    self.course = course
    self.horizontalAccuracy = horizontalAccuracy
    self.satellitesUsed = satellitesUsed
    self.satellitesInView = satellitesInView
    self.pdop = pdop
    self.hdop = hdop
    self.vdop = vdop
    self.dateSuspect = dateSuspect
  }
}

extension Fix {
  /// What a fix without an accuracy figure (RMC or GLL only, gps2udp, a TPV without `eph`)
  /// counts as where a decision needs one: 50 m, what HDOP 9.4 gives with locd's 5 m range
  /// error, a poor but valid autonomous fix, and `Accuracy=`'s default, so that such fixes,
  /// once stable, settle acquisition with the defaults. It settles no stricter `Accuracy=`,
  /// and the zone hysteresis takes it as the fix's radius. It is never reported as the fix's
  /// accuracy (that stays unknown) and acceptance gives it no slack. docs/NMEA.md, "Fixes
  /// without an accuracy".
  public static let assumedAccuracy = Meters(50)
}
