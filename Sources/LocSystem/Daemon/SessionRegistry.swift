import LocCore

/// Which face holds each open engine session, so that a reply or an event the engine
/// addresses to a session reaches the face that can deliver it. A face registers a session
/// when it opens it to the engine and the entry goes when it is closed; ids come from one
/// `SessionIDs` shared by the faces, so no range of ids belongs to a face.
final class SessionRegistry {
  /// A way clients reach locd.
  enum Face: Sendable, Equatable {
    case socket
    case geoClue
    case gpsd
    case nmeaOut
    /// The NMEA output's TCP port (a `GpsdServer` streaming sentences).
    case nmeaTCP
  }

  /// The counter the faces take their session ids from.
  let ids = SessionIDs()
  private var faces: [SessionID: Face] = [:]

  /// `session` is open on `face` from now on.
  func opened(_ session: SessionID, on face: Face) { faces[session] = face }

  /// `session` is closed; nothing more is delivered to it.
  func closed(_ session: SessionID) { faces[session] = nil }

  /// The face that holds `session`; nil once it is closed.
  func face(of session: SessionID) -> Face? { faces[session] }
}
