import LocCore

/// Start and Stop: a client's Start is its app's "in use" (docs/GEOCLUE.md).
///
/// The DesktopId names the app (the adapter weighed it against the peer's cgroup); the apps
/// model's decision for (uid, app) answers if there is one; otherwise the user's agent is
/// asked (AuthorizeApp, capped by its MaxAccuracyLevel) and its answer is remembered, so it is
/// asked once per app. Without an agent and a decision, Start waits `Limits.agentWait` for
/// one and is then answered AccessDenied with the reason.
extension GeoClueFace {
  mutating func start(
    _ call: CallID, _ number: ClientNumber, sender: String,
    identity: Result<AppIdentity, RequestError>?, _ out: inout Output
  ) {
    guard let client = clients[number], client.owner == sender else {
      counters.strangersDenied += 1
      out.append(.fail(call, name: BusError.Name.accessDenied, text: "Access denied"))
      return
    }
    if client.active {
      out.append(.reply(call, []))
      return
    }
    guard client.start.pending == nil else {
      out.append(
        .fail(call, name: BusError.Name.accessDenied, text: "An authorization request is already pending"))
      return
    }
    clients[number]?.start.pending = call
    clients[number]?.start.stoppedByAgent = false
    guard !client.desktopID.isEmpty, let identity else {
      deny(number, "'DesktopId' property must be set", &out)
      return
    }
    switch identity {
    case .failure(let refusal):
      counters.identitiesRefused += 1
      deny(number, refusal.message, &out)
    case .success(let identity):
      clients[number]?.start.identity = identity
      decide(number, waited: false, &out)
    }
  }

  mutating func stop(_ call: CallID, _ number: ClientNumber, sender: String, _ out: inout Output) {
    guard let client = clients[number], client.owner == sender else {
      counters.strangersDenied += 1
      out.append(.fail(call, name: BusError.Name.accessDenied, text: "Access denied"))
      return
    }
    if client.start.waitingForAgent {
      clients[number]?.start.waitingForAgent = false
      out.append(.cancel(.agentWait(number)))
    }
    if client.start.pending != nil { deny(number, "Stop was called before Start was authorized", &out) }
    clients[number]?.start.stoppedByAgent = false
    endSession(number, &out)
    out.append(.reply(call, []))
  }

  /// The answer to a pending Start: MaxAccuracyLevel 0 stops everything; then the app's
  /// decision; without one the agent (waited for once, `waited` after that).
  mutating func decide(_ number: ClientNumber, waited: Bool, _ out: inout Output) {
    guard let client = clients[number], let identity = client.start.identity else { return }
    let uid = client.peer.uid
    let agent = agents[uid]
    if let agent, agent.maxLevel == 0 {
      deny(number, "Geolocation disabled for UID \(uid)", &out)
      return
    }
    clients[number]?.start.allowedLevel = GeoClueAccuracyLevel.clamped(client.requestedLevel, to: .exact)
    let level = self.level(of: number)
    let (decision, by) = apps(identity.key)
    let app = identity.key.app.rawValue
    switch decision.status {
    case .whenInUse, .always:
      counters.decidedBefore += 1
      beginSession(number, &out)
    case .denied:
      deny(
        number,
        "'\(app)' was denied the location for UID \(uid) (by \(by ?? "the user")); 'locctl apps grant \(app)' allows it",
        &out)
    case .restricted:
      deny(number, "'\(app)' may not use the location: restricted by locd's app policy", &out)
    case .notDetermined:
      if let agent {
        ask(agent, about: number, identity.key, level: level, &out)
      } else if waited {
        deny(
          number,
          "'\(client.desktopID)' disallowed, no agent for UID \(uid) and no decision: locd asks the user's GeoClue agent (AddAgent) once per app, or 'locctl apps grant \(app)' decides; see docs/GEOCLUE.md",
          &out)
      } else {
        // No agent for the client's user yet: one starting with the session gets a few seconds.
        clients[number]?.start.waitingForAgent = true
        out.append(.arm(.agentWait(number), after: limits.agentWait))
      }
    }
  }

  mutating func agentWaitEnded(_ number: ClientNumber, _ out: inout Output) {
    guard let client = clients[number], client.start.waitingForAgent else { return }
    clients[number]?.start.waitingForAgent = false
    guard client.start.pending != nil else { return }
    decide(number, waited: true, &out)
  }

  /// An agent registered for `uid`: clients waiting for one are decided now.
  mutating func agentArrived(for uid: UInt32, _ out: inout Output) {
    for number in clients.keys.sorted() {
      guard let client = clients[number], client.peer.uid == uid, client.start.waitingForAgent else {
        continue
      }
      out.append(.cancel(.agentWait(number)))
      agentWaitEnded(number, &out)
    }
  }

  /// The agent's answer (already remembered): yes at some level is when-in-use, reduced below
  /// street; no is denied; an error (the agent failed, or left) is not an answer.
  mutating func authorized(
    _ number: ClientNumber, level: GeoClueAccuracyLevel, _ answer: Result<GeoClueAccuracyLevel, FaceError>,
    _ out: inout Output
  ) {
    guard let client = clients[number] else { return }
    let id = client.desktopID
    let uid = client.peer.uid
    let allowed: GeoClueAccuracyLevel
    switch answer {
    case .failure(let problem):
      deny(number, "the agent of UID \(uid) \(problem.text)", &out)
      return
    case .success(let level): allowed = level
    }
    clients[number]?.start.allowedLevel = min(client.start.allowedLevel ?? .none, allowed)
    guard min(level, allowed) > .none else {
      deny(
        number,
        "Agent rejected '\(id)' for user '\(uid)'. Please ensure that '\(id)' has installed a valid \(id).desktop file.",
        &out)
      return
    }
    // The user's agent turned geolocation off while the answer was on its way (a change of
    // its MaxAccuracyLevel, or a new agent at 0): the yes is kept, the Start denied as at 0.
    if let agent = agents[uid], agent.maxLevel == 0 {
      deny(number, "Geolocation disabled for UID \(uid)", &out)
      return
    }
    beginSession(number, &out)
  }

  /// Opens the client's engine session as its app's, in use, its updates at the level it
  /// may have now (`level(of:)`); the engine's answer comes back as `engineAnswered`.
  mutating func beginSession(_ number: ClientNumber, _ out: inout Output) {
    guard let client = clients[number], let identity = client.start.identity else { return }
    let level = self.level(of: number)
    clients[number]?.served.inSession = true
    clients[number]?.served.grantedLevel = level
    clients[number]?.served.mustSignal = false
    out.append(.openSession(number, client.peer, identity, level.isReduced ? .reduced : .full))
    askFullAccuracyIfHeld(number, at: level, &out)
  }

  /// A client served at street or exact whose app was decided reduced (say, by an earlier
  /// Start at city) asks the engine for temporary full accuracy, as an app on the socket
  /// would: the person is asked again, and a yes lasts while the client runs (decision 0067).
  mutating func askFullAccuracyIfHeld(
    _ number: ClientNumber, at level: GeoClueAccuracyLevel, _ out: inout Output
  ) {
    guard let client = clients[number], let key = client.start.identity?.key, !level.isReduced else { return }
    let app = apps(key).0
    guard app.allowsInUse, app.accuracy == .reduced else { return }
    counters.fullAccuracyAsked += 1
    out.append(
      .askFullAccuracy(
        number, purpose: "'\(client.desktopID)' asks GeoClue for accuracy level \(level.rawValue) (\(level))")
    )
  }

  /// The level a client may have now: what its Start allowed, capped by its user's agent's
  /// MaxAccuracyLevel (none when that is 0).
  func level(of number: ClientNumber) -> GeoClueAccuracyLevel {
    guard let client = clients[number] else { return .none }
    let allowed = client.start.allowedLevel ?? .none
    guard let agent = agents[client.peer.uid] else { return allowed }
    return min(allowed, GeoClueAccuracyLevel.atMost(agent.maxLevel))
  }

  /// The engine's answer to the session's hello (if refused) or its updates.
  mutating func startAnswered(
    _ number: ClientNumber, _ result: Result<Response, RequestError>, _ out: inout Output
  ) {
    guard let client = clients[number], client.served.inSession else { return }
    switch result {
    case .success:
      setActive(number, true, &out)
      counters.starts += 1
      if let call = client.start.pending {
        clients[number]?.start.pending = nil
        out.append(.reply(call, []))
      }
      updateInUse(&out)
      let level = client.served.grantedLevel.map { " at level \($0.rawValue)" } ?? ""
      // At debug: a client can Start and Stop in a loop (issue 28: 2,300 lines a second).
      out.append(.log(.debug, "GeoClue: '\(client.desktopID)' of uid \(client.peer.uid) started\(level)"))
    case .failure(let error):
      endSession(number, &out)
      deny(number, "locd refused: \(error.message)", &out)
    }
  }

  /// The app of an active client may no longer use the location: the client stops.
  mutating func appLost(_ number: ClientNumber, _ status: AuthorizationStatus, _ out: inout Output) {
    guard let client = clients[number], client.served.inSession else { return }
    logRepeatable(
      .info,
      "GeoClue: '\(client.desktopID)' of uid \(client.peer.uid) stopped: its app is \(status.rawValue) now",
      &out)
    endSession(number, &out)
  }

  /// Ends the client's engine session (Stop, the agent turned geolocation off, the app lost
  /// its authorization): the app is no longer in use through this client.
  mutating func endSession(_ number: ClientNumber, _ out: inout Output) {
    guard let client = clients[number] else { return }
    if client.served.inSession {
      clients[number]?.served.inSession = false
      // Its heading updates end with the session: no stale compass on a later Start.
      clients[number]?.served.compass = nil
      out.append(.closeSession(number))
    }
    setActive(number, false, &out)
    updateInUse(&out)
  }

  /// Answers the pending Start AccessDenied with `why`.
  mutating func deny(_ number: ClientNumber, _ why: String, _ out: inout Output) {
    guard let client = clients[number] else { return }
    counters.startsDenied += 1
    logRepeatable(
      .info, "GeoClue: Start of '\(client.desktopID)' (uid \(client.peer.uid)) denied: \(why)", &out)
    guard let call = client.start.pending else { return }
    clients[number]?.start.pending = nil
    out.append(.fail(call, name: BusError.Name.accessDenied, text: why))
  }
}
