/// Where the Sun's centre is in an observer's sky: apparent topocentric elevation (without
/// refraction, the convention of every threshold in `SolarEvent`) and azimuth.
public struct SunPosition: Hashable, Sendable {
  /// Angle above the horizon, -90...90 degrees, without atmospheric refraction.
  public var elevation: Degrees
  /// Direction, clockwise from true north, 0..<360 degrees.
  public var azimuth: Degrees

  /// A position.
  public init(elevation: Degrees, azimuth: Degrees) {
    self.elevation = elevation
    self.azimuth = azimuth
  }

  /// Whether photographers' golden hour is on: the Sun between -4 and +6 degrees.
  public var isGoldenHour: Bool { elevation.value >= -4 && elevation.value < 6 }

  /// Whether the blue hour is on: the Sun between -6 and -4 degrees.
  public var isBlueHour: Bool { elevation.value >= -6 && elevation.value < -4 }
}
