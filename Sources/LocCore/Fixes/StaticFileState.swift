/// What locd made of the static file (`[Position] StaticFile=`) when it last read it.
public struct StaticFileState: Sendable, Hashable {
  /// The file's path (nil: no static file configured).
  public var path: String?
  /// The position it gives (nil: absent or unusable).
  public var position: Position?
  /// Why it gives none although it exists (`line 2: the longitude is not a number`).
  public var problem: String?
  /// The value out of bounds, when that is the problem (an accuracy of 1e-300 m).
  public var outOfBounds: OutOfBounds?

  /// A state.
  public init(
    path: String? = nil, position: Position? = nil, problem: String? = nil, outOfBounds: OutOfBounds? = nil
  ) {
    self.path = path
    self.position = position
    self.problem = problem
    self.outOfBounds = outOfBounds
  }

  /// The state after reading `path`: `text` its contents (nil: no such file, or `unreadable`
  /// says why it could not be read), read at `now`.
  public static func read(
    _ path: String, text: String?, unreadable: String? = nil, at now: Instant
  ) -> StaticFileState {
    if let unreadable { return StaticFileState(path: path, problem: unreadable) }
    guard let text else { return StaticFileState(path: path) }
    do throws(StaticLocationFile.Problem) {
      let c = try StaticLocationFile.parse(text)
      let p = Position(
        coordinate: c.coordinate, accuracy: c.accuracy, altitude: c.altitude, time: now, receivedAt: now,
        source: "static:\(path)", origin: .staticFile)
      return StaticFileState(path: path, position: p)
    } catch {
      return StaticFileState(path: path, problem: error.description, outOfBounds: error.outOfBounds)
    }
  }
}
