import LocCore

/// Start and Stop: a client's Start is its app's "in use" (docs/GEOCLUE.md).
///
/// The DesktopId names the app (checked against the peer's cgroup); the apps model's
/// decision for (uid, app) answers if there is one; otherwise the user's agent is asked
/// (AuthorizeApp, capped by its MaxAccuracyLevel) and its answer is remembered, so it is asked
/// once per app. Without an agent and a decision, Start waits `Limits.agentWait` for one and
/// is then answered AccessDenied with the reason.
extension GeoClueService {
  func start(_ client: GeoClueClient, call: BusMessage) {
    if client.active {
      answer(call)
      return
    }
    guard client.pendingStart == nil else {
      fail(call, BusError.Name.accessDenied, "An authorization request is already pending")
      return
    }
    client.pendingStart = call
    client.stoppedByAgent = false
    guard !client.desktopID.isEmpty else {
      deny(client, "'DesktopId' property must be set")
      return
    }
    switch handlers.identify(client.peer, client.desktopID) {
    case .failure(let refusal):
      counters.identitiesRefused += 1
      deny(client, refusal.message)
    case .success(let identity):
      client.identity = identity
      decide(client, waited: false)
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

  /// The answer to a pending Start: MaxAccuracyLevel 0 stops everything; then the app's
  /// decision; without one the agent (waited for once, `waited` after that).
  private func decide(_ client: GeoClueClient, waited: Bool) {
    guard let identity = client.identity else { return }
    let uid = client.peer.uid
    let agent = agents[uid]
    if let agent, agent.maxLevel == 0 {
      deny(client, "Geolocation disabled for UID \(uid)")
      return
    }
    client.allowedLevel = GeoClueAccuracyLevel.clamped(client.requestedLevel, to: .exact)
    let level = self.level(of: client)
    let (decision, by) = handlers.authorization(identity.key)
    let app = identity.key.app.rawValue
    switch decision.status {
    case .whenInUse, .always:
      counters.decidedBefore += 1
      beginSession(client)
    case .denied:
      deny(
        client,
        "'\(app)' was denied the location for UID \(uid) (by \(by ?? "the user")); 'locctl apps grant \(app)' allows it"
      )
    case .restricted:
      deny(client, "'\(app)' may not use the location: restricted by locd's app policy")
    case .notDetermined:
      if let agent {
        ask(agent, about: client, level: level)
      } else if waited {
        deny(
          client,
          "'\(client.desktopID)' disallowed, no agent for UID \(uid) and no decision: locd asks the user's GeoClue agent (AddAgent) once per app, or 'locctl apps grant \(app)' decides; see docs/GEOCLUE.md"
        )
      } else {
        waitForAgent(client)
      }
    }
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
    decide(client, waited: true)
  }

  /// An agent registered for `uid`: clients waiting for one are decided now.
  func agentArrived(for uid: UInt32) {
    for client in clients.values where client.peer.uid == uid && client.agentWait != nil {
      client.agentWait?.cancel()
      client.agentWait = nil
      agentWaitEnded(client)
    }
  }

  /// AuthorizeApp(desktop id, level capped by MaxAccuracyLevel), counted against the user
  /// (`callAgent`): over that user's share the Start is denied at once, and one the agent does
  /// not answer within AgentTimeout is denied then. The answer is remembered, also when it
  /// comes later than that or after the client left, unless the app was decided meanwhile.
  private func ask(_ agent: GeoClueAgent, about client: GeoClueClient, level: GeoClueAccuracyLevel) {
    guard let key = client.identity?.key else { return }
    let uid = client.peer.uid
    let id = client.desktopID
    let refusal = callAgent(
      agent.name, uid: uid, interface: GeoClueAgent.interface, member: "AuthorizeApp",
      arguments: [.string(id), .uint32(level.rawValue)],
      answered: { [weak self, weak client] reply, late in
        guard let self else { return }
        let answer = GeoClueService.answer(in: reply)
        if case .success(let allowed) = answer {
          if late { self.counters.lateAgentAnswers += 1 }
          // Unless the app was decided meanwhile (`locctl apps`, another client's answer).
          if self.handlers.authorization(key).0.status == .notDetermined {
            let granted = min(level, allowed)
            self.handlers.remember(
              key, granted > .none ? .grant(.whenInUse, granted.isReduced ? .reduced : .full) : .deny)
          }
        }
        guard !late, let client, self.clients[client.path] === client, client.pendingStart != nil else {
          return
        }
        self.authorized(client, level: level, answer)
      },
      timedOut: { [weak self, weak client] in
        guard let self, let client, self.clients[client.path] === client, client.pendingStart != nil else {
          return
        }
        self.deny(
          client,
          "the agent of UID \(uid) did not answer AuthorizeApp for '\(id)' within \(TimeFormat.duration(self.limits.agentTimeout)); its answer, if it comes, is kept for the next Start"
        )
      })
    if let refusal {
      deny(client, refusal.text)
    } else {
      counters.authorizeCalls += 1
    }
  }

  /// The agent's reply to AuthorizeApp as an answer: the level it allows (`.none` for no), or
  /// why the reply is not an answer (an error: the agent failed or left).
  static func answer(in reply: BusMessage) -> Result<GeoClueAccuracyLevel, BusProblem> {
    if let problem = reply.errorText { return .failure(BusProblem("did not authorize: \(problem)")) }
    guard let yes = try? reply.readBool(), let allowed = try? reply.readUInt32() else {
      return .failure(BusProblem("answered AuthorizeApp with something else than (bu)"))
    }
    return .success(yes ? GeoClueAccuracyLevel.atMost(allowed) : .none)
  }

  /// The agent's answer (already remembered): yes at some level is when-in-use, reduced below
  /// street; no is denied; an error (the agent failed, or left) is not an answer.
  private func authorized(
    _ client: GeoClueClient, level: GeoClueAccuracyLevel, _ answer: Result<GeoClueAccuracyLevel, BusProblem>
  ) {
    let id = client.desktopID
    let allowed: GeoClueAccuracyLevel
    switch answer {
    case .failure(let problem):
      deny(client, "the agent of UID \(client.peer.uid) \(problem)")
      return
    case .success(let level): allowed = level
    }
    client.allowedLevel = min(client.allowedLevel ?? .none, allowed)
    guard min(level, allowed) > .none else {
      deny(
        client,
        "Agent rejected '\(id)' for user '\(client.peer.uid)'. Please ensure that '\(id)' has installed a valid \(id).desktop file."
      )
      return
    }
    // The user's agent turned geolocation off while the answer was on its way (a change of
    // its MaxAccuracyLevel, or a new agent at 0): the yes is kept, the Start denied as at 0.
    if let agent = agents[client.peer.uid], agent.maxLevel == 0 {
      deny(client, "Geolocation disabled for UID \(client.peer.uid)")
      return
    }
    beginSession(client)
  }
}
