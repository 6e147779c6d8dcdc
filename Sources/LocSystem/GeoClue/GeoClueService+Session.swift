import LocCore

/// A client's active period: an app session of the engine, in use (in the foreground) while
/// the client is active, its updates capped at reduced accuracy for the levels below street.
extension GeoClueService {
  /// The engine request ids of a client's session: the hello, its updates, the rest.
  static let helloRequest = RequestID.number(0)
  static let updatesRequest = RequestID.number(1)
  static let otherRequest = RequestID.number(2)

  /// Opens the client's engine session as its app's, in use, subscribed to its authorization,
  /// and starts its updates at the level it may have now (`level(of:)`); the engine's answer
  /// arrives through `reply` (often before this returns).
  func beginSession(_ client: GeoClueClient) {
    guard let identity = client.identity else { return }
    let session = sessionIDs.take()
    let level = self.level(of: client)
    client.session = session
    client.grantedLevel = level
    client.mustSignal = false
    sessions[session] = client
    handlers.opened(session, client.peer, identity)
    guard client.session == session else { return }  // the hello was refused
    handlers.request(session, GeoClueService.otherRequest, .setActivity(.foreground))
    handlers.request(session, GeoClueService.otherRequest, .subscribe([.authorization]))
    let updates = AppSession.Updates(accuracy: level.isReduced ? .reduced : .full)
    handlers.request(session, GeoClueService.updatesRequest, .startUpdates(updates))
  }

  /// The level a client may have now: what its Start allowed, capped by its user's agent's
  /// MaxAccuracyLevel (none when that is 0).
  func level(of client: GeoClueClient) -> GeoClueAccuracyLevel {
    let allowed = client.allowedLevel ?? .none
    guard let agent = agents[client.peer.uid] else { return allowed }
    return min(allowed, GeoClueAccuracyLevel.atMost(agent.maxLevel))
  }

  /// Serves an active client at the level its user's agent allows now. When that moves it
  /// between reduced and full accuracy (and its app's own decision does not hold it at
  /// reduced either way), its updates start again at the new accuracy: the engine hands it
  /// the current position at once, as the reduced grid's cell or as it is, and that position
  /// is signalled as a new Location object whatever the thresholds (LocationUpdated, then the
  /// Location property), so the client never keeps a location more precise than it may have.
  func recap(_ client: GeoClueClient) {
    guard client.active, let session = client.session, let old = client.grantedLevel,
      let key = client.identity?.key
    else { return }
    let new = level(of: client)
    guard new != old else { return }
    client.grantedLevel = new
    let app = handlers.authorization(key).0.accuracy
    func served(_ level: GeoClueAccuracyLevel) -> AccuracyAuthorization {
      level.isReduced ? .reduced : app
    }
    logRepeatable(
      .info,
      "GeoClue: '\(client.desktopID)' of uid \(client.peer.uid) now at level \(new.rawValue) (\(served(new).rawValue) accuracy), its agent's MaxAccuracyLevel"
    )
    guard served(new) != served(old) else { return }
    client.mustSignal = true
    let updates = AppSession.Updates(accuracy: new.isReduced ? .reduced : .full)
    handlers.request(session, GeoClueService.otherRequest, .startUpdates(updates))
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
      // At debug: a client can Start and Stop in a loop (issue 28: 2,300 lines a second).
      handlers.log(.debug, "GeoClue: '\(client.desktopID)' of uid \(client.peer.uid) started\(level)")
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
    logRepeatable(.info, "GeoClue: Start of '\(client.desktopID)' (uid \(client.peer.uid)) denied: \(why)")
    guard let call = client.pendingStart else { return }
    client.pendingStart = nil
    fail(call, BusError.Name.accessDenied, why)
  }
}
