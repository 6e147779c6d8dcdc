/// Identifies one client connection.
public struct SessionID: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// A number unique for the daemon's lifetime.
  public var raw: UInt64
  /// A session id.
  public init(_ raw: UInt64) { self.raw = raw }
  public static func < (a: SessionID, b: SessionID) -> Bool { a.raw < b.raw }
  public var description: String { "session \(raw)" }
}

/// Identifies one configured source (its index in the configuration).
public struct SourceID: Hashable, Sendable, Comparable {
  /// Index in `DaemonConfig.effectiveSources`.
  public var index: Int
  /// A source id.
  public init(_ index: Int) { self.index = index }
  public static func < (a: SourceID, b: SourceID) -> Bool { a.index < b.index }
}

/// A request id as the client sent it (JSON number or string), echoed in the reply.
public enum RequestID: Hashable, Sendable {
  case number(Int64)
  case string(String)
}

/// One request of one session, for answers that come later.
public struct RequestRef: Hashable, Sendable {
  /// The session.
  public var session: SessionID
  /// The request's id.
  public var id: RequestID
  /// A reference.
  public init(session: SessionID, id: RequestID) {
    self.session = session
    self.id = id
  }
}
