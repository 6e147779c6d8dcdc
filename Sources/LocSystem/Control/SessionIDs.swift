import LocCore

/// The one counter that numbers engine sessions, shared by every face (the native socket, the
/// GeoClue2 face): a session id says nothing about the face that holds it; the daemon's
/// `SessionRegistry` does.
public final class SessionIDs {
  private var next: UInt64 = 1

  /// A counter starting at 1.
  public init() {}

  /// An id no session of this counter had before.
  public func take() -> SessionID {
    defer { next += 1 }
    return SessionID(next)
  }
}
