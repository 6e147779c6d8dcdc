import LocCore

/// The `staticFile` member of `status` (since 1.8; present while the file `[Position]
/// StaticFile=` names exists, and while that names another file than the default
/// /etc/geolocation): whether the file gives a position, and why not if it exists but does not.
/// No coordinates: the position in effect is `position`.
public struct StaticFileStatusView: WireCodable {
  /// The file.
  public var path: String
  /// Whether it gives a position now.
  public var inUse: Bool
  /// Why it gives none although it exists (null when it is absent or fine).
  public var problem: String?

  /// The wire form of `s` (its path is set: a status report holds no state without one).
  public init(_ s: StaticFileState, path: String) {
    self.path = path
    inUse = s.position != nil
    problem = s.problem
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    self.path = try o.string("path")
    inUse = try o.bool("inUse")
    problem = try o.optionalString("problem")
  }

  public var json: JSON { writtenJSON }
}

extension StaticFileStatusView: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    s.member("path", .string(path))
    s.member("inUse", .bool(inUse))
    s.member("problem", .optional(problem))
    s.closeObject()
  }
}
