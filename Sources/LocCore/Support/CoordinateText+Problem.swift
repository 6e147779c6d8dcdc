extension CoordinateText {
  /// Why a text is not a coordinate, said so that it teaches the form expected.
  public enum Problem: Error, Equatable, CustomStringConvertible {
    /// Nothing given.
    case empty
    /// Not a latitude and a longitude (commas misplaced, a letter alone).
    case shape
    /// Only a latitude (the text as given): the longitude may be the next word.
    case incomplete(String)
    /// More than a latitude and a longitude (bare `59 54 50` among them).
    case tooMany
    /// A word that is not a number of degrees.
    case notANumber(String)
    /// The latitude is outside -90...90.
    case latitude(Double)
    /// The longitude is outside -180...180.
    case longitude(Double)
    /// A hemisphere letter on the wrong number (`10.75N`); `latitude`: it is on the first.
    case hemisphere(String, latitude: Bool)
    /// A hemisphere letter and a sign on one number (`-33.92S`).
    case letterAndSign(String)
    /// Degrees, minutes and seconds that do not add up to an angle: the angle, the reason.
    case angle(String, String)
    /// A `geo:` URI that is not one: the URI, the reason.
    case geo(String, String)
    /// A `geo:` URI in another coordinate reference system than WGS84.
    case crs(String)

    /// Whether the text held only a latitude.
    public var isIncomplete: Bool {
      if case .incomplete = self { return true } else { return false }
    }

    /// The forms, for the end of a message.
    static let forms =
      "e.g. 59.9139,10.7522, 59.9139 10.7522, 59.9139N 10.7522E, 59°54'50\"N 10°45'8\"E or geo:59.9139,10.7522"

    /// The message: what is wrong, and the form expected.
    public var description: String {
      switch self {
      case .empty:
        return "expected a coordinate, LAT,LON or LAT LON (\(Problem.forms))"
      case .shape:
        return "expected LAT,LON or LAT LON, latitude first (\(Problem.forms))"
      case .incomplete(let text):
        return "'\(text)' is only a latitude: the longitude must follow (\(Problem.forms))"
      case .tooMany:
        return
          "expected two numbers, a latitude and a longitude; degrees, minutes and seconds need their marks "
          + "(59°54'50\"N or 59d54m50sN, not 59 54 50 N)"
      case .notANumber(let word):
        return "'\(word)' is not a number of degrees; write decimal degrees, e.g. 59.9139,10.7522, or "
          + "degrees and minutes with their marks, e.g. 59°54.83'N"
      case .latitude(let v):
        return "latitude \(v) is out of range: it must be -90...90 (south negative)"
      case .longitude(let v):
        return "longitude \(v) is out of range: it must be -180...180 (west negative)"
      case .hemisphere(let text, let latitude):
        return latitude
          ? "'\(text)': E and W belong to the longitude, which comes second; write LAT LON, e.g. 59.91N 10.75E"
          : "'\(text)': N and S belong to the latitude, which comes first; write LAT LON, e.g. 59.91N 10.75E"
      case .letterAndSign(let text):
        return "'\(text)': a sign and a hemisphere letter together; write one, e.g. 33.92S or -33.92"
      case .angle(let text, let reason):
        return "'\(text)': \(reason) (e.g. 59°54'50\"N or 59°54.83'N)"
      case .geo(let text, let reason):
        return
          "'\(text)': \(reason); write geo:LAT,LON[,ALT][;crs=wgs84][;u=METRES], e.g. geo:59.9139,10.7522;u=35"
      case .crs(let name):
        return "crs=\(name) is not supported: a geo: URI here must be WGS84 (crs=wgs84, the default)"
      }
    }
  }

  /// A `geo:` URI (RFC 5870): `geo:LAT,LON[,ALT]` and parameters `;crs=wgs84` (no other) and
  /// `;u=METRES`; the scheme and the parameter names in any case; other parameters (the RFC
  /// lets new ones come) are passed over.
  static func geoURI(_ text: Substring) throws(Problem) -> Reading {
    let uri = String(text.reversed().drop(while: \.isWhitespace).reversed())
    let pieces = uri.dropFirst(4).split(separator: ";", omittingEmptySubsequences: false)
    let numbers = pieces[0].split(separator: ",", omittingEmptySubsequences: false)
    guard (2...3).contains(numbers.count) else {
      throw .geo(uri, "expected LAT,LON or LAT,LON,ALT after geo:")
    }
    let lat = try geoNumber(numbers[0], signed: true, uri, "the latitude")
    let lon = try geoNumber(numbers[1], signed: true, uri, "the longitude")
    let altitude =
      numbers.count == 3 ? Meters(try geoNumber(numbers[2], signed: true, uri, "the altitude")) : nil
    var crs: Substring? = nil
    var uncertainty: Meters? = nil
    for piece in pieces.dropFirst() {
      let pair = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let name = pair[0].lowercased()
      let value = pair.count == 2 ? pair[1] : ""
      switch name {
      case "crs":
        guard crs == nil else { throw .geo(uri, "crs is given twice") }
        guard value.lowercased() == "wgs84" else { throw .crs(String(value)) }
        crs = value
      case "u":
        guard uncertainty == nil else { throw .geo(uri, "u is given twice") }
        uncertainty = Meters(try geoNumber(value, signed: false, uri, "the uncertainty u"))
      case "": throw .geo(uri, "an empty parameter")
      default: continue
      }
    }
    guard (-90.0...90.0).contains(lat) else { throw .latitude(lat) }
    guard (-180.0...180.0).contains(lon) else { throw .longitude(lon) }
    guard let c = Coordinate(lat: lat, lon: lon) else { throw .shape }
    return Reading(coordinate: c, altitude: altitude, uncertainty: uncertainty)
  }

  /// A number as RFC 5870 writes them: `[-]DIGITS[.DIGITS]` (no `+`, no exponent; no sign
  /// at all unless `signed`).
  static func geoNumber(_ text: Substring, signed: Bool, _ uri: String, _ what: String) throws(Problem)
    -> Double
  {
    var rest = text
    if signed, rest.first == "-" { rest = rest.dropFirst() }
    let halves = rest.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    guard halves.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isDigit) }), let v = Double(text), v.isFinite
    else {
      let sign = signed ? "-" : ""
      throw .geo(uri, "\(what) '\(text)' is not a number (\(sign)DIGITS[.DIGITS])")
    }
    return v
  }
}
