import LocCore

/// A JSON object being decoded into a typed view: each accessor reads one member, checks
/// its type and range, and names the member's path when it is wrong. A member that is
/// missing or null is `nil` for the optional accessors and an error for the others;
/// members it does not ask for are ignored (newer minor versions add them).
public struct WireObject {
  /// The object's members.
  public let members: JSONObject
  /// Where the object sits.
  public let path: WirePath

  /// The object in `json`, or an error when `json` is not one.
  public init(_ json: JSON, path: WirePath) throws(WireDecodingError) {
    guard case .object(let o) = json else {
      throw WireDecodingError(path, "expected an object, got \(kind(json))")
    }
    members = o
    self.path = path.joined
  }

  /// An error at member `key`.
  public func error(_ key: String, _ reason: String) -> WireDecodingError {
    WireDecodingError(path.member(key), reason)
  }

  /// The member's value, nil when missing or null.
  public func value(_ key: String) -> JSON? {
    guard let v = members[key], !v.isNull else { return nil }
    return v
  }

  private func require(_ key: String) throws(WireDecodingError) -> JSON {
    guard let v = value(key) else {
      throw error(key, members[key] == nil ? "missing" : "must not be null")
    }
    return v
  }

  // MARK: Strings and words

  /// A string member.
  public func string(_ key: String) throws(WireDecodingError) -> String {
    try Self.string(require(key), path.member(key))
  }

  /// A string member that may be null or missing.
  public func optionalString(_ key: String) throws(WireDecodingError) -> String? {
    guard let v = value(key) else { return nil }
    return try Self.string(v, path.member(key))
  }

  /// A word of a closed enumeration: an unknown word is an error.
  public func word<E: RawRepresentable>(_ key: String, _: E.Type = E.self) throws(WireDecodingError) -> E
  where E.RawValue == String {
    let s = try string(key)
    guard let e = E(rawValue: s) else { throw error(key, "unknown value \"\(s.prefix(64))\"") }
    return e
  }

  /// A word of a closed enumeration that may be null or missing.
  public func optionalWord<E: RawRepresentable>(_ key: String, _: E.Type = E.self) throws(WireDecodingError)
    -> E? where E.RawValue == String
  {
    guard value(key) != nil else { return nil }
    return try word(key, E.self)
  }

  /// A word of an open enumeration: unknown words are kept as `.other`.
  public func open<E>(_ key: String, _: E.Type = E.self) throws(WireDecodingError) -> OpenEnum<E> {
    OpenEnum(try string(key))
  }

  /// A word of an open enumeration that may be null or missing.
  public func optionalOpen<E>(_ key: String, _: E.Type = E.self) throws(WireDecodingError) -> OpenEnum<E>? {
    try optionalString(key).map { OpenEnum($0) }
  }

  // MARK: Numbers

  /// A number member.
  public func number(_ key: String) throws(WireDecodingError) -> Double {
    try Self.number(require(key), path.member(key))
  }

  /// A number member that may be null or missing.
  public func optionalNumber(_ key: String) throws(WireDecodingError) -> Double? {
    guard let v = value(key) else { return nil }
    return try Self.number(v, path.member(key))
  }

  /// An integer member (a JSON number without a fraction, below 2^53).
  public func int(_ key: String) throws(WireDecodingError) -> Int {
    try Self.int(require(key), path.member(key))
  }

  /// An integer member that may be null or missing.
  public func optionalInt(_ key: String) throws(WireDecodingError) -> Int? {
    guard let v = value(key) else { return nil }
    return try Self.int(v, path.member(key))
  }

  /// A length in metres.
  public func meters(_ key: String) throws(WireDecodingError) -> Meters { Meters(try number(key)) }

  /// A length in metres that may be null or missing.
  public func optionalMeters(_ key: String) throws(WireDecodingError) -> Meters? {
    try optionalNumber(key).map { Meters($0) }
  }

  /// A duration written as seconds.
  public func seconds(_ key: String) throws(WireDecodingError) -> Duration {
    try Self.seconds(try number(key), path.member(key))
  }

  /// A duration written as seconds that may be null or missing.
  public func optionalSeconds(_ key: String) throws(WireDecodingError) -> Duration? {
    guard let n = try optionalNumber(key) else { return nil }
    return try Self.seconds(n, path.member(key))
  }

  /// The longest duration a message may carry, in seconds (about 31,700 years): checked
  /// before the conversion, which traps beyond about 1.7e20 s.
  public static let maxSeconds = 1e12

  static func seconds(_ n: Double, _ path: WirePath) throws(WireDecodingError) -> Duration {
    guard n.isFinite, abs(n) <= maxSeconds else {
      throw WireDecodingError(path, "expected a duration in seconds within ±\(Int(maxSeconds)), got \(n)")
    }
    return .seconds(n)
  }

  /// A boolean member.
  public func bool(_ key: String) throws(WireDecodingError) -> Bool {
    guard case .bool(let b) = try require(key) else { throw error(key, "expected true or false") }
    return b
  }

  /// A boolean member that may be null or missing (one a later version added).
  public func optionalBool(_ key: String) throws(WireDecodingError) -> Bool? {
    guard value(key) != nil else { return nil }
    return try bool(key)
  }

  // MARK: Times and places

  /// An ISO-8601 UTC instant.
  public func instant(_ key: String) throws(WireDecodingError) -> Instant {
    let s = try string(key)
    guard let t = Instant(iso8601: s) else {
      throw error(key, "not an ISO-8601 UTC time: \"\(s.prefix(64))\"")
    }
    return t
  }

  /// An ISO-8601 UTC instant that may be null or missing.
  public func optionalInstant(_ key: String) throws(WireDecodingError) -> Instant? {
    guard value(key) != nil else { return nil }
    return try instant(key)
  }

  /// A calendar date `YYYY-MM-DD`.
  public func date(_ key: String) throws(WireDecodingError) -> CivilDate {
    let s = try string(key)
    guard let d = CivilDate(iso: s) else { throw error(key, "not a date YYYY-MM-DD: \"\(s.prefix(64))\"") }
    return d
  }

  /// A calendar date that may be null or missing.
  public func optionalDate(_ key: String) throws(WireDecodingError) -> CivilDate? {
    guard value(key) != nil else { return nil }
    return try date(key)
  }

  /// `lat` and `lon` in degrees, in range.
  public func coordinate() throws(WireDecodingError) -> Coordinate {
    let lat = try number("lat")
    let lon = try number("lon")
    guard let c = Coordinate(lat: lat, lon: lon) else {
      throw WireDecodingError(path, "latitude must be -90...90 and longitude -180...180")
    }
    return c
  }

  // MARK: Nested values

  /// A nested view.
  public func decode<T: WireCodable>(_ key: String, _: T.Type = T.self) throws(WireDecodingError) -> T {
    try T(json: require(key), path: path.member(key))
  }

  /// A nested view that may be null or missing.
  public func optionalDecode<T: WireCodable>(_ key: String, _: T.Type = T.self) throws(WireDecodingError)
    -> T?
  {
    guard let v = value(key) else { return nil }
    return try T(json: v, path: path.member(key))
  }

  /// An array member, each element decoded with `element`.
  public func array<T>(_ key: String, _ element: (JSON, WirePath) throws(WireDecodingError) -> T)
    throws(WireDecodingError) -> [T]
  {
    guard case .array(let items) = try require(key) else { throw error(key, "expected an array") }
    var out: [T] = []
    out.reserveCapacity(items.count)
    for (i, item) in items.enumerated() { out.append(try element(item, path.member(key).element(i))) }
    return out
  }

  /// An array of views.
  public func array<T: WireCodable>(_ key: String, of _: T.Type = T.self) throws(WireDecodingError) -> [T] {
    try array(key) { (v, p) throws(WireDecodingError) in try T(json: v, path: p) }
  }

  /// An array of strings.
  public func strings(_ key: String) throws(WireDecodingError) -> [String] {
    try array(key) { (v, p) throws(WireDecodingError) in try Self.string(v, p) }
  }

  /// An object of named integers (counters), in order.
  public func counters(_ key: String) throws(WireDecodingError) -> [Counter] {
    let o = try WireObject(require(key), path: path.member(key))
    var out: [Counter] = []
    for m in o.members.members { out.append(Counter(m.key, try Self.int(m.value, o.path.member(m.key)))) }
    return out
  }

  /// A nested object.
  public func object(_ key: String) throws(WireDecodingError) -> WireObject {
    try WireObject(require(key), path: path.member(key))
  }

  // MARK: Single values

  static func string(_ v: JSON, _ path: WirePath) throws(WireDecodingError) -> String {
    guard case .string(let s) = v else { throw WireDecodingError(path, "expected a string, got \(kind(v))") }
    return s
  }

  static func number(_ v: JSON, _ path: WirePath) throws(WireDecodingError) -> Double {
    guard case .number(let n) = v else { throw WireDecodingError(path, "expected a number, got \(kind(v))") }
    return n
  }

  static func int(_ v: JSON, _ path: WirePath) throws(WireDecodingError) -> Int {
    let n = try number(v, path)
    guard n == n.rounded(), abs(n) < 9_007_199_254_740_992 else {
      throw WireDecodingError(path, "expected an integer, got \(n)")
    }
    return Int(n)
  }
}

/// A short name of a JSON value's kind, for error messages (never the value: it may be long).
func kind(_ v: JSON) -> String {
  switch v {
  case .null: return "null"
  case .bool: return "a boolean"
  case .number: return "a number"
  case .string: return "a string"
  case .array: return "an array"
  case .object: return "an object"
  }
}
