/// The contents of the one state file (`state.json` in the state directory, mode 0600):
/// the last known position and the manual location, nothing else, never a history.
/// Format: docs/decisions/0005-state-file.md.
public struct StoredState: Sendable, Hashable {
  /// The format version written; readers reject other major versions.
  public static let formatVersion = 1
  /// The last known position from a receiver.
  public var lastKnown: Position?
  /// The manual location.
  public var manual: Position?

  /// A state.
  public init(lastKnown: Position? = nil, manual: Position? = nil) {
    self.lastKnown = lastKnown
    self.manual = manual
  }

  /// Why a state file could not be read.
  public struct DecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong (no coordinates in it).
    public var description: String
  }

  /// The file's bytes: one JSON object and a newline.
  public func encoded() -> [UInt8] {
    var o: JSONObject = ["version": .int(StoredState.formatVersion)]
    o["lastKnown"] = lastKnown.map(StoredState.encode) ?? .null
    o["manual"] = manual.map(StoredState.encode) ?? .null
    return Array((JSON.object(o).serialized + "\n").utf8)
  }

  /// Reads a state file's bytes; anything unexpected is an error, never a guess.
  public init(decoding bytes: [UInt8]) throws(DecodeError) {
    let json: JSON
    do { json = try JSON.parse(bytes, maxDepth: 4) } catch {
      throw DecodeError(description: "not valid JSON (\(error))")
    }
    guard let version = json["version"]?.number else { throw DecodeError(description: "no format version") }
    // Compared as a number: `Int(1e19)` would trap and `Int(1.9)` would read 1.
    guard version == version.rounded(), abs(version) < 1e15 else {
      throw DecodeError(description: "format version \(version) is not a whole number")
    }
    guard version == Double(StoredState.formatVersion) else {
      throw DecodeError(description: "unsupported format version \(Int64(version))")
    }
    self.lastKnown = try StoredState.decodePosition(json["lastKnown"], field: "lastKnown")
    self.manual = try StoredState.decodePosition(json["manual"], field: "manual")
  }

  static func encode(_ p: Position) -> JSON {
    var o: JSONObject = [
      "lat": .number(p.coordinate.latitude.value), "lon": .number(p.coordinate.longitude.value),
    ]
    o["accuracy"] = .optional(p.accuracy?.value)
    o["altitude"] = .optional(p.altitude?.value)
    o["time"] = .string(p.time.iso8601(fractionDigits: 3))
    o["receivedAt"] = .string(p.receivedAt.iso8601(fractionDigits: 3))
    o["source"] = .string(p.source)
    o["name"] = .optional(p.name)
    return .object(o)
  }

  static func decodePosition(_ value: JSON?, field: String) throws(DecodeError) -> Position? {
    guard let value, !value.isNull else { return nil }
    func bad(_ what: String) -> DecodeError { DecodeError(description: "\(field): \(what)") }
    guard let lat = value["lat"]?.number, let lon = value["lon"]?.number else { throw bad("missing lat/lon") }
    guard let coordinate = Coordinate(lat: lat, lon: lon) else { throw bad("coordinates out of range") }
    guard let timeText = value["time"]?.string, let time = Instant(iso8601: timeText),
      let receivedText = value["receivedAt"]?.string, let receivedAt = Instant(iso8601: receivedText)
    else { throw bad("missing or malformed time") }
    guard let source = value["source"]?.string else { throw bad("missing source") }
    func optionalMeters(_ key: String) throws(DecodeError) -> Meters? {
      guard let v = value[key], !v.isNull else { return nil }
      guard let n = v.number, n.isFinite else { throw bad("\(key) is not a number") }
      return Meters(n)
    }
    let accuracy = try optionalMeters("accuracy")
    if let accuracy, accuracy.value < 0 { throw bad("negative accuracy") }
    return Position(
      coordinate: coordinate, accuracy: accuracy, altitude: try optionalMeters("altitude"), time: time,
      receivedAt: receivedAt, source: source, name: value["name"]?.string)
  }
}
