import LocCore

/// The one coordinate syntax of locctl: latitude then longitude in decimal degrees, north
/// and east positive, separated by a comma, spaces or both (`59.91,10.75`, `59.91 10.75`,
/// `-33.92, 18.42`).
enum CoordinateText {
  /// Why a text is not a coordinate.
  enum Problem: Error, CustomStringConvertible {
    /// Not two numbers.
    case shape
    /// A word that is not a decimal number.
    case notANumber(String)
    /// The latitude is outside -90...90.
    case latitude(Double)
    /// The longitude is outside -180...180.
    case longitude(Double)

    var description: String {
      switch self {
      case .shape:
        return "expected LAT,LON or LAT LON in decimal degrees, e.g. 59.9139,10.7522"
      case .notANumber(let word):
        return "'\(word)' is not a number of degrees; write decimal degrees, e.g. 59.9139,10.7522"
      case .latitude(let v):
        return "latitude \(v) is out of range: it must be -90...90 (south negative)"
      case .longitude(let v):
        return "longitude \(v) is out of range: it must be -180...180 (west negative)"
      }
    }
  }

  /// Parses `text`.
  static func parse(_ text: String) throws(Problem) -> Coordinate {
    let commas = text.reduce(0) { $0 + ($1 == "," ? 1 : 0) }
    let parts = text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" })
    guard parts.count == 2, commas <= 1 else { throw .shape }
    let lat = try number(parts[0])
    let lon = try number(parts[1])
    guard (-90.0...90.0).contains(lat) else { throw .latitude(lat) }
    guard (-180.0...180.0).contains(lon) else { throw .longitude(lon) }
    guard let c = Coordinate(lat: lat, lon: lon) else { throw .shape }
    return c
  }

  /// A finite decimal number: an optional sign, digits with at most one point (no exponent,
  /// no `nan`, no `inf`, which `Double("...")` would take).
  static func number(_ word: Substring) throws(Problem) -> Double {
    var digits = word
    if digits.first == "-" || digits.first == "+" { digits = digits.dropFirst() }
    let points = digits.reduce(0) { $0 + ($1 == "." ? 1 : 0) }
    guard !digits.isEmpty, points <= 1, digits.contains(where: \.isNumber),
      digits.allSatisfy({ ($0.isASCII && $0.isNumber) || $0 == "." }), let v = Double(word), v.isFinite
    else { throw .notANumber(String(word)) }
    return v
  }
}
