import LocCore

/// GeoClue's accuracy levels (GClueAccuracyLevel in GeoClue 2.6's gclue-enums.h), carried as
/// `u` on the bus: what a client asks for (RequestedAccuracyLevel), what an agent allows
/// (AuthorizeApp, MaxAccuracyLevel) and what the service offers (AvailableAccuracyLevel).
public enum GeoClueAccuracyLevel: UInt32, Sendable, Hashable, Comparable, CaseIterable {
  /// No location at all; an agent's MaxAccuracyLevel of 0 turns geolocation off for its user.
  case none = 0
  /// Country.
  case country = 1
  /// City.
  case city = 4
  /// Neighbourhood.
  case neighborhood = 5
  /// Street.
  case street = 6
  /// As exact as the sources allow.
  case exact = 8

  public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

  /// What the service offers with a position of `provenance` (AvailableAccuracyLevel): EXACT
  /// for GNSS and the configured places (the static file, the manual location) and the last
  /// known position, STREET for Wi-Fi, NEIGHBORHOOD for cells (as geoclue's 3G source), CITY for an IP lookup; EXACT with no position yet
  /// (the receivers locd would use are exact).
  public static func available(for provenance: PositionProvenance?) -> GeoClueAccuracyLevel {
    switch provenance {
    case .wifi: return .street
    case .cell: return .neighborhood
    case .ip: return .city
    case .gnss, .staticFile, .manual, .cached, nil: return .exact
    }
  }

  /// GeoClue's default for a client that never sets RequestedAccuracyLevel
  /// (DEFAULT_ACCURACY_LEVEL in gclue-service-client.c).
  public static let clientDefault = GeoClueAccuracyLevel.city

  /// A raw level made valid the way GeoClue does at Start: clamped to country...`maximum`,
  /// then rounded down to the nearest defined level (2 and 3 become country, 7 street).
  /// `maximum` of none gives none.
  public static func clamped(_ raw: UInt32, to maximum: GeoClueAccuracyLevel) -> GeoClueAccuracyLevel {
    guard maximum > .none else { return .none }
    let bounded = min(max(raw, GeoClueAccuracyLevel.country.rawValue), maximum.rawValue)
    return allCases.last { $0.rawValue <= bounded } ?? .country
  }

  /// The nearest defined level at or below `raw` (what an agent's answer or property means
  /// when it is not one of the defined values); none below country.
  public static func atMost(_ raw: UInt32) -> GeoClueAccuracyLevel {
    allCases.last { $0.rawValue <= raw } ?? .none
  }

  /// Whether the level asks for reduced accuracy in Core Location's sense: country, city and
  /// neighbourhood are reduced, street and exact full (docs/GEOCLUE.md).
  public var isReduced: Bool { self < .street }
}
