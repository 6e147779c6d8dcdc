/// What came back from one lookup, as the shell hands it to the engine.
public enum GeolocateOutcome: Sendable, Hashable {
  /// The service answered with this HTTP status and body (at most `maxBodyBytes`).
  case answered(status: Int, body: [UInt8])
  /// No answer: `failure` says what kind (timeout, too large, transport), `detail` in words.
  case failed(GeolocateFailure, detail: String)
  /// Not sent at all, and why (an IP lookup while a VPN carries the default route).
  case skipped(String)
}

/// Why a lookup gave no position; each kind has its counter in `status`.
public enum GeolocateFailure: String, Sendable, Hashable, CaseIterable {
  /// HTTP 404: the service knows none of the networks (ichnaea's "notFound").
  case notFound = "not-found"
  /// Another HTTP status than 200 and 404 (a 5xx backs off).
  case httpStatus = "http-status"
  /// The body is not the API's answer (not JSON, members missing or of the wrong type).
  case malformed
  /// Coordinates outside the globe (or not finite).
  case outOfRange = "out-of-range"
  /// An accuracy of 0 or less, or none.
  case badAccuracy = "bad-accuracy"
  /// The answer was larger than `GeolocateAnswer.maxBodyBytes`.
  case tooLarge = "too-large"
  /// No complete answer within the timeout (a server that never answers, or trickles).
  case timeout
  /// The connection failed (refused, DNS, TLS).
  case transport
}

/// The service's answer (`{"location":{"lat":..,"lng":..},"accuracy":..}`), judged.
public enum GeolocateAnswer {
  /// The largest body read: an answer is about 80 bytes; anything near this is not one.
  public static let maxBodyBytes = 65536
  /// The farthest accuracy accepted (half the Earth's circumference): beyond it the answer
  /// says nothing about where.
  public static let maxAccuracy = Meters(20_037_508)

  /// A usable answer: where, and the accuracy as locd means it (decision 0011). The API
  /// says only that `accuracy` is the radius of a circle around the location, in metres,
  /// with no confidence level; ichnaea derives it from the area the matched networks cover,
  /// so it is taken unchanged as locd's 68 % radius: never more precise than the service
  /// said (docs/NETWORK.md, "Accuracy").
  public struct Located: Sendable, Hashable {
    /// Where.
    public var coordinate: Coordinate
    /// The radius.
    public var accuracy: Meters
  }

  /// Judges `status` and `body`.
  public static func judge(status: Int, body: [UInt8]) -> Result<Located, Problem> {
    if status == 404 { return .failure(Problem(.notFound, "the service knows none of the networks (404)")) }
    guard status == 200 else { return .failure(Problem(.httpStatus, "HTTP status \(status)")) }
    guard body.count <= maxBodyBytes else { return .failure(Problem(.tooLarge, "answer over 64 KiB")) }
    let json: JSON
    do throws(JSONParseError) {
      json = try JSON.parse(body, maxDepth: 8, maxMembers: 64)
    } catch {
      return .failure(Problem(.malformed, "not JSON (\(error))"))
    }
    guard let lat = json["location"]?["lat"]?.number, let lon = json["location"]?["lng"]?.number else {
      return .failure(Problem(.malformed, "no location.lat and location.lng numbers"))
    }
    guard lat.isFinite, lon.isFinite, let coordinate = Coordinate(lat: lat, lon: lon) else {
      return .failure(Problem(.outOfRange, "coordinates outside the globe"))
    }
    guard let accuracy = json["accuracy"]?.number else {
      return .failure(Problem(.badAccuracy, "no accuracy number"))
    }
    guard accuracy.isFinite, accuracy > 0, accuracy <= maxAccuracy.value else {
      return .failure(Problem(.badAccuracy, "accuracy \(accuracy) m is not above 0 and at most 20,037 km"))
    }
    return .success(Located(coordinate: coordinate, accuracy: Meters(accuracy)))
  }

  /// Why an answer is not used: its kind and the words for `status`.
  public struct Problem: Error, Sendable, Hashable {
    /// The kind (its counter).
    public var kind: GeolocateFailure
    /// In words, never a coordinate.
    public var detail: String
    /// A problem.
    public init(_ kind: GeolocateFailure, _ detail: String) {
      self.kind = kind
      self.detail = detail
    }
  }
}
