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
  public static let maxAccuracy = PositionBounds.maxAccuracy

  /// A usable answer: where, and the accuracy as locd means it (decision 0011). The API
  /// says only that `accuracy` is the radius of a circle around the location, in metres,
  /// with no confidence level; ichnaea derives it from the area the matched networks cover,
  /// so it is taken unchanged as locd's 68 % radius: never more precise than the service
  /// said, nor than the lookup's kind can be (`floored(for:)`; docs/NETWORK.md, "Accuracy").
  public struct Located: Sendable, Hashable {
    /// Where.
    public var coordinate: Coordinate
    /// The radius.
    public var accuracy: Meters
    /// The service's accuracy when it claimed less than the lookup's kind can give, raised to
    /// that floor (`floored(for:)`); nil when it was taken as it came.
    public var outOfBounds: OutOfBounds? = nil

    /// The answer with its accuracy no better than a position of `origin` can be
    /// (`PositionBounds.accuracyFloor`): a Wi-Fi answer of 1e-300 m becomes 10 m.
    public func floored(for origin: PositionProvenance) -> Located {
      let judged = PositionBounds.accuracy(accuracy.value, of: origin)
      guard let off = judged.outOfBounds, let value = judged.value else { return self }
      var raised = self
      raised.accuracy = Meters(value)
      raised.outOfBounds = off
      return raised
    }
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
    // The JSON parser gives finite numbers only (a NaN or 1e999 is not JSON: `malformed`).
    let coordinate: Coordinate
    switch PositionBounds.coordinate(lat: lat, lon: lon) {
    case .success(let c): coordinate = c
    case .failure(let off):
      return .failure(Problem(.outOfRange, "coordinates outside the globe (\(off))", off))
    }
    guard let accuracy = json["accuracy"]?.number else {
      return .failure(Problem(.badAccuracy, "no accuracy number"))
    }
    guard accuracy > 0, accuracy <= maxAccuracy.value else {
      let off = OutOfBounds(.accuracy, accuracy, bound: accuracy > 0 ? maxAccuracy.value : 0, .refused)
      return .failure(
        Problem(
          .badAccuracy, "accuracy \(OutOfBounds.number(accuracy)) m is not above 0 and at most 20,037 km", off
        ))
    }
    return .success(Located(coordinate: coordinate, accuracy: Meters(accuracy)))
  }

  /// Why an answer is not used: its kind and the words for `status`.
  public struct Problem: Error, Sendable, Hashable {
    /// The kind (its counter).
    public var kind: GeolocateFailure
    /// In words, never a coordinate.
    public var detail: String
    /// The value that lay out of bounds (a latitude off the globe, an accuracy of 0), if that
    /// was the problem.
    public var outOfBounds: OutOfBounds?
    /// A problem.
    public init(_ kind: GeolocateFailure, _ detail: String, _ outOfBounds: OutOfBounds? = nil) {
      self.kind = kind
      self.detail = detail
      self.outOfBounds = outOfBounds
    }
  }
}
