import LocCore

/// What the face's numbers stand for on the bus (GeoClueService's side of `GeoClueFace`):
/// the client objects, the calls held until the face answers them, the timers it armed, the
/// watches on agents and the engine sessions of active clients.
final class GeoClueHandles {
  /// Client objects by number.
  var clients: [GeoClueFace.ClientNumber: GeoClueClient] = [:]
  /// Calls the face has not answered yet.
  var calls: [GeoClueFace.CallID: BusMessage] = [:]
  /// The next call's number.
  var nextCall: GeoClueFace.CallID = 1
  /// The face's timers that are armed.
  var timers: [GeoClueFace.Timer: Timer] = [:]
  /// The PropertiesChanged watch on each user's agent.
  var agentWatches: [UInt32: BusMatch] = [:]
  /// Active clients by their engine session.
  var sessions: [SessionID: GeoClueFace.ClientNumber] = [:]

  /// Keeps `call` until the face answers it; its number.
  func hold(_ call: BusMessage) -> GeoClueFace.CallID {
    let id = take()
    calls[id] = call
    return id
  }

  /// A call number for a call answered at once (a property write).
  func take() -> GeoClueFace.CallID {
    defer { nextCall += 1 }
    return nextCall
  }
}
