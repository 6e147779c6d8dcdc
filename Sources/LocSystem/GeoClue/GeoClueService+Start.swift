import LocCore

/// Start and Stop, and the agents that are asked in between.
///
/// Stage 1 of docs/GEOCLUE.md: every Start asks the user's agent (AuthorizeApp), capped by
/// its MaxAccuracyLevel; without an agent, Start waits `Limits.agentWait` for one and is
/// then answered AccessDenied with the reason. The engine then decides with its own rules
/// (`subscribe` to `location`). When the apps machine lands, the decision (and the memory of
/// it) moves there and this becomes the bridge between its agent questions and the bus.
extension GeoClueService {
  func start(_ client: GeoClueClient, call: BusMessage) {
    if client.active {
      answer(call)
      return
    }
    guard client.pendingStart == nil else {
      fail(call, BusError.accessDenied, "An authorization request is already pending")
      return
    }
    client.pendingStart = call
    client.stoppedByAgent = false
    guard !client.desktopID.isEmpty else {
      deny(client, "'DesktopId' property must be set")
      return
    }
    if let agent = agents[client.peer.uid] {
      ask(agent, about: client)
    } else {
      waitForAgent(client)
    }
  }

  func stop(_ client: GeoClueClient, call: BusMessage) {
    client.agentWait?.cancel()
    client.agentWait = nil
    if client.pendingStart != nil { deny(client, "Stop was called before Start was authorized") }
    client.stoppedByAgent = false
    endSession(client)
    answer(call)
  }

  /// No agent for the client's user yet: one starting with the session gets a few seconds.
  private func waitForAgent(_ client: GeoClueClient) {
    let timer = try? loop.timer(clock: .monotonic, accuracyMicroseconds: 100_000) {
      [weak self, weak client] in
      guard let self, let client else { return }
      client.agentWait = nil
      self.agentWaitEnded(client)
    }
    guard let timer else {
      agentWaitEnded(client)
      return
    }
    client.agentWait = timer
    let wait =
      UInt64(limits.agentWait.components.seconds) * 1_000_000
      + UInt64(limits.agentWait.components.attoseconds / 1_000_000_000_000)
    timer.arm(atMicroseconds: loop.monotonicMicroseconds + wait)
  }

  private func agentWaitEnded(_ client: GeoClueClient) {
    guard clients[client.path] === client, client.pendingStart != nil else { return }
    if let agent = agents[client.peer.uid] {
      ask(agent, about: client)
    } else {
      deny(
        client,
        "'\(client.desktopID)' disallowed, no agent for UID \(client.peer.uid) and no decision: locd asks the user's GeoClue agent (AddAgent) for every app; see docs/GEOCLUE.md"
      )
    }
  }

  /// An agent registered for `uid`: clients waiting for one are asked about now.
  func agentArrived(for uid: UInt32) {
    for client in clients.values where client.peer.uid == uid && client.agentWait != nil {
      client.agentWait?.cancel()
      client.agentWait = nil
      agentWaitEnded(client)
    }
  }

  /// AuthorizeApp(desktop id, level capped by MaxAccuracyLevel); on yes the engine is asked.
  private func ask(_ agent: GeoClueAgent, about client: GeoClueClient) {
    guard agent.maxLevel > 0 else {
      deny(client, "Geolocation disabled for UID \(client.peer.uid)")
      return
    }
    let level = GeoClueAccuracyLevel.clamped(
      client.requestedLevel, to: GeoClueAccuracyLevel.atMost(agent.maxLevel))
    guard let bus else { return }
    counters.authorizeCalls += 1
    do {
      try BusCall.call(
        on: bus, destination: agent.name, path: GeoClueAgent.path, interface: GeoClueAgent.interface,
        member: "AuthorizeApp", arguments: [.string(client.desktopID), .uint32(level.rawValue)]
      ) { [weak self, weak client] reply in
        guard let self, let client, self.clients[client.path] === client, client.pendingStart != nil else {
          return
        }
        self.authorized(client, level: level, reply: reply)
      }
    } catch {
      deny(client, "cannot ask the agent of UID \(client.peer.uid): \(error)")
    }
  }

  private func authorized(_ client: GeoClueClient, level: GeoClueAccuracyLevel, reply: BusMessage) {
    let id = client.desktopID
    if let problem = reply.errorText {
      deny(client, "the agent of UID \(client.peer.uid) did not authorize '\(id)': \(problem)")
      return
    }
    guard let yes = try? reply.readBool(), let allowed = try? reply.readUInt32() else {
      deny(client, "the agent of UID \(client.peer.uid) answered AuthorizeApp with something else than (bu)")
      return
    }
    let granted = min(level, GeoClueAccuracyLevel.atMost(allowed))
    guard yes, granted > .none else {
      deny(
        client,
        "Agent rejected '\(id)' for user '\(client.peer.uid)'. Please ensure that '\(id)' has installed a valid \(id).desktop file."
      )
      return
    }
    beginSession(client, level: granted)
  }

  /// Opens the client's engine session and subscribes it to `location`; the engine's
  /// answer arrives through `reply` (often before this returns).
  func beginSession(_ client: GeoClueClient, level: GeoClueAccuracyLevel) {
    nextSession += 1
    let session = SessionID(GeoClueService.firstSessionID + nextSession)
    client.session = session
    client.grantedLevel = level
    sessions[session] = client
    handlers.opened(session, client.peer, client.desktopID, level)
    handlers.request(session, .number(1), .subscribe([.location]))
  }

  /// The engine's answer to the session's subscription.
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

  /// Ends the client's engine session (Stop, or the agent turned geolocation off).
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
