/// What a position from each kind of source can physically be: the floor under its accuracy,
/// the ceiling over it, the altitudes a machine can be at. Applied where a position comes in
/// from outside (the decoders through `FixPlausibility`, the geolocation service's answer,
/// the static file, `set-location`); docs/SOURCES.md, "Bounds", gives the table and why.
///
/// A floor is kept in one of two ways. A **measurement** (a receiver's fix, a service's
/// answer) whose accuracy is claimed below what its kind can be is **raised** to the floor:
/// the place may be right, only the claim is not, and locd never says more than the kind
/// allows. A **statement** (the static file, a `set-location` request) below its floor is
/// **refused**: a person wrote it, the mistake is theirs to see (a 0 or 1e-300 where a radius
/// was meant), and nothing measured it. Everything beyond a ceiling is refused.
public enum PositionBounds {
  /// The accuracy no statement of a machine's place goes below: 1 cm. A machine is larger
  /// than that, and a surveyed mark is given to the centimetre; 0, 1e-300 or a negative
  /// radius is a typing mistake, not a place known exactly.
  public static let statedAccuracyFloor = Meters(0.01)

  /// The largest accuracy any answer or statement may have: half the Earth's circumference
  /// (20,037.5 km, WGS84's equator over two): a circle larger than that says nothing about
  /// where.
  public static let maxAccuracy = Meters(20_037_508)

  /// The lowest altitude a stated place may have: −11,000 m, below the deepest ocean floor
  /// (the Challenger Deep, about 10,935 m below sea level). A machine that does not move and
  /// has no sky (an ocean-bottom observatory, a deep mine, whose deepest workings are about
  /// 4 km down) is what the static file is for, so its range reaches further down than a
  /// GNSS fix's (`FixPlausibility.minAltitude`, −1,000 m: a fix needs the sky).
  public static let minStatedAltitude = Meters(-11_000)

  /// The highest altitude a stated place may have: the same 100 km (the Kármán line) as a
  /// fix (`FixPlausibility.maxAltitude`): aircraft and balloons (about 50 km) are below it.
  public static let maxStatedAltitude = FixPlausibility.maxAltitude

  /// The smallest accuracy (68 % radius) a position of `origin` can have.
  ///
  /// - GNSS: 1 cm (`FixPlausibility.minAccuracy`).
  /// - Wi-Fi: 10 m. The access points' places are known only from the GNSS fixes of the
  ///   phones that heard them (metres each), and the machine is anywhere within their range
  ///   (tens of metres indoors); ichnaea answers no better than 10 m (`WIFI_MIN_ACCURACY` in
  ///   its api/locate/constants.py).
  /// - Cell: 50 m. A cell identity places the machine anywhere in the cell; the smallest
  ///   cells (femtocells) reach tens of metres. beaconDB answers no better than 50 m for a
  ///   cell (its geolocate.rs), ichnaea 1 km.
  /// - IP: 1 km. An address is placed by where its network is registered and routed: a
  ///   town at best. MaxMind's radius comes in whole kilometres, at least 1; beaconDB answers
  ///   25 km, ichnaea 25 km for a city.
  /// - Static file, manual: `statedAccuracyFloor` (1 cm).
  /// - Cached: a measurement's, already bounded when it came: GNSS's.
  public static func accuracyFloor(_ origin: PositionProvenance) -> Meters {
    switch origin {
    case .gnss, .cached: return FixPlausibility.minAccuracy
    case .wifi: return Meters(10)
    case .cell: return Meters(50)
    case .ip: return Meters(1_000)
    case .staticFile, .manual: return statedAccuracyFloor
    }
  }

  /// What an accuracy below its floor gets: raised for a measurement, refused for a statement.
  public static func belowFloor(_ origin: PositionProvenance) -> OutOfBounds.Action {
    switch origin {
    case .gnss, .cached, .wifi, .cell, .ip: return .raised
    case .staticFile, .manual: return .refused
    }
  }

  /// A value judged: what to use (nil: refused) and what was done if it was out of bounds.
  public struct Judged: Sendable, Hashable {
    /// The value to use; nil when it is refused.
    public var value: Double?
    /// What lay out of bounds, and what was done; nil when the value was within them.
    public var outOfBounds: OutOfBounds?

    /// A judgement.
    public init(value: Double?, outOfBounds: OutOfBounds? = nil) {
      self.value = value
      self.outOfBounds = outOfBounds
    }
  }

  /// Judges an accuracy `claimed` by a source of kind `origin` (not GNSS: a fix's bounds are
  /// `FixPlausibility`'s). Not above 0 and beyond `maxAccuracy` are refused; below the floor
  /// raised or refused (`belowFloor`).
  public static func accuracy(_ claimed: Double, of origin: PositionProvenance) -> Judged {
    guard claimed > 0 else {
      return Judged(value: nil, outOfBounds: OutOfBounds(.accuracy, claimed, bound: 0, .refused))
    }
    guard claimed <= maxAccuracy.value else {
      return Judged(
        value: nil, outOfBounds: OutOfBounds(.accuracy, claimed, bound: maxAccuracy.value, .refused))
    }
    let floor = accuracyFloor(origin).value
    guard claimed < floor else { return Judged(value: claimed) }
    let action = belowFloor(origin)
    return Judged(
      value: action == .raised ? floor : nil,
      outOfBounds: OutOfBounds(.accuracy, claimed, bound: floor, action))
  }

  /// Judges the altitude of a stated place (the static file): within `minStatedAltitude`…
  /// `maxStatedAltitude`, else refused.
  public static func statedAltitude(_ altitude: Double) -> Judged {
    if altitude < minStatedAltitude.value {
      return Judged(
        value: nil, outOfBounds: OutOfBounds(.altitude, altitude, bound: minStatedAltitude.value, .refused))
    }
    if altitude > maxStatedAltitude.value {
      return Judged(
        value: nil, outOfBounds: OutOfBounds(.altitude, altitude, bound: maxStatedAltitude.value, .refused))
    }
    return Judged(value: altitude)
  }

  /// The coordinate of `lat` and `lon`, or the first of them that is off the globe (latitude
  /// beyond ±90°, longitude beyond ±180°), refused.
  public static func coordinate(lat: Double, lon: Double) -> Result<Coordinate, OutOfBounds> {
    if let c = Coordinate(lat: lat, lon: lon) { return .success(c) }
    if !(abs(lat) <= 90) { return .failure(OutOfBounds(.latitude, lat, bound: lat < 0 ? -90 : 90, .refused)) }
    return .failure(OutOfBounds(.longitude, lon, bound: lon < 0 ? -180 : 180, .refused))
  }
}
