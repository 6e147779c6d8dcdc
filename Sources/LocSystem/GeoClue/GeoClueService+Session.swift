import LocCore

/// A client's active period: an app session of the engine, in use (in the foreground) while
/// the client is active, its updates capped at reduced accuracy for the levels below street.
extension GeoClueService {
  /// The engine request ids of a client's session: the hello, its updates, the rest.
  static let helloRequest = RequestID.number(0)
  static let updatesRequest = RequestID.number(1)
  static let otherRequest = RequestID.number(2)

  /// Opens the client's engine session as its app's, in use, subscribed to its authorization,
  /// and starts its updates; the engine's answer arrives through `reply` (often before this
  /// returns).
  func beginSession(_ client: GeoClueClient, level: GeoClueAccuracyLevel) {
    guard let identity = client.identity else { return }
    nextSession += 1
    let session = SessionID(GeoClueService.firstSessionID + nextSession)
    client.session = session
    client.grantedLevel = level
    sessions[session] = client
    handlers.opened(session, client.peer, identity)
    guard client.session == session else { return }  // the hello was refused
    handlers.request(session, GeoClueService.otherRequest, .setActivity(.foreground))
    handlers.request(session, GeoClueService.otherRequest, .subscribe([.authorization]))
    let updates = AppSession.Updates(accuracy: level.isReduced ? .reduced : .full)
    handlers.request(session, GeoClueService.updatesRequest, .startUpdates(updates))
  }

  /// The engine's answer to the session's hello (if refused) or its updates.
  func startAnswered(_ client: GeoClueClient, _ result: Result<Response, RequestError>) {
    switch result {
    case .success:
      client.setActive(true)
      counters.starts += 1
      if let call = client.pendingStart {
        client.pendingStart = nil
        answer(call)
      }
      updateInUse()
      let level = client.grantedLevel.map { " at level \($0.rawValue)" } ?? ""
      handlers.log(.info, "GeoClue: '\(client.desktopID)' of uid \(client.peer.uid) started\(level)")
    case .failure(let error):
      endSession(client)
      deny(client, "locd refused: \(error.message)")
    }
  }

  /// Ends the client's engine session (Stop, the agent turned geolocation off, the app lost
  /// its authorization): the app is no longer in use through this client.
  func endSession(_ client: GeoClueClient) {
    if let session = client.session {
      client.session = nil
      sessions[session] = nil
      handlers.closed(session)
    }
    client.setActive(false)
    updateInUse()
  }

  /// Answers the pending Start AccessDenied with `why`.
  func deny(_ client: GeoClueClient, _ why: String) {
    counters.startsDenied += 1
    handlers.log(.info, "GeoClue: Start of '\(client.desktopID)' (uid \(client.peer.uid)) denied: \(why)")
    guard let call = client.pendingStart else { return }
    client.pendingStart = nil
    fail(call, BusError.accessDenied, why)
  }
}
