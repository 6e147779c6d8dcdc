import LocCore

/// Agents and the calls to them. AddAgent registers the caller as the agent of its own uid
/// (replacing an earlier one, as GeoClue does); its MaxAccuracyLevel is read at once, applied
/// to that user's running clients, and watched. Each call to an agent (AuthorizeApp, the
/// MaxAccuracyLevel read) counts against the user whose agent it goes to
/// (`GeoClueAgentCalls`) until the bus answers it; the caller waits `Limits.agentTimeout` at
/// most and then goes on without the answer, but the call stays counted.
extension GeoClueFace {
  mutating func addAgent(_ call: CallID, sender: String, peer: Peer?, _ id: String?, _ out: inout Output) {
    guard let id, GeoClueFace.isDesktopID(id), let peer else {
      counters.agentsRefused += 1
      out.append(.fail(call, name: BusError.Name.invalidArgs, text: "AddAgent takes the agent's desktop id"))
      return
    }
    let purpose = AgentCall.Purpose.register(call, sender: sender, uid: peer.uid, desktopID: id)
    if let refusal = callAgent(sender, uid: peer.uid, .maxLevel, purpose, &out) {
      counters.agentsRefused += 1
      out.append(
        .fail(call, name: BusError.Name.limitsExceeded, text: "\(id) not added as agent: \(refusal)"))
    }
  }

  /// Why a call to the agent of `uid` may not go now, in words (nil: it may).
  func agentCallRefusal(uid: UInt32) -> String? {
    switch agentCalls.decide(uid: uid) {
    case .admit: return nil
    case .perUserLimit:
      return
        "the agent of UID \(uid) has not answered \(agentCalls.held(by: uid)) calls (MaxAgentCallsPerUser); locd asks it nothing more until it answers or leaves the bus"
    case .full:
      return
        "GeoClue agents have not answered \(agentCalls.taken) calls (MaxAgentCalls); locd asks no more until some are answered"
    }
  }

  /// Asks the agent `name` of `uid`, counted against that user; returns why it was not asked
  /// (a limit; counted), nil when the call goes.
  mutating func callAgent(
    _ name: String, uid: UInt32, _ question: AgentQuestion, _ purpose: AgentCall.Purpose, _ out: inout Output
  ) -> String? {
    if let refusal = agentCallRefusal(uid: uid) {
      counters.agentCallsRefused += 1
      return refusal
    }
    let id = next.call
    next.call += 1
    calls[id] = AgentCall(uid: uid, purpose: purpose)
    agentCalls.take(uid: uid)
    // The deadline first: a call that cannot be sent is answered at once and cancels it.
    out.append(.arm(.agentTimeout(id), after: limits.agentTimeout))
    out.append(.callAgent(id, to: name, question))
    return nil
  }

  /// AuthorizeApp(desktop id, level capped by MaxAccuracyLevel): over that user's share the
  /// Start is denied at once, and one the agent does not answer within AgentTimeout is denied
  /// then. The answer is remembered, also when it comes later than that or after the client
  /// left, unless the app was decided meanwhile.
  mutating func ask(
    _ agent: Agent, about number: ClientNumber, _ key: AppKey, level: GeoClueAccuracyLevel,
    _ out: inout Output
  ) {
    guard let client = clients[number] else { return }
    let purpose = AgentCall.Purpose.authorize(number, key, desktopID: client.desktopID, level: level)
    if let refusal = callAgent(agent.name, uid: agent.uid, .authorize(client.desktopID, level), purpose, &out)
    {
      deny(number, refusal, &out)
    } else {
      counters.authorizeCalls += 1
    }
  }

  mutating func agentAnswered(_ id: AgentCallID, _ answer: AgentAnswer, _ out: inout Output) {
    guard let call = calls.removeValue(forKey: id) else { return }
    agentCalls.release(uid: call.uid)
    if !call.timedOut { out.append(.cancel(.agentTimeout(id))) }
    switch call.purpose {
    case .authorize(let number, let key, _, let level):
      let result: Result<GeoClueAccuracyLevel, FaceError>
      switch answer {
      case .authorized(let allowed):
        result = .success(allowed)
        if call.timedOut { counters.lateAgentAnswers += 1 }
        // Unless the app was decided meanwhile (`locctl apps`, another client's answer).
        if apps(key).0.status == .notDetermined {
          let granted = min(level, allowed)
          out.append(
            .remember(key, granted > .none ? .grant(.whenInUse, granted.isReduced ? .reduced : .full) : .deny)
          )
        }
      case .notSent(let problem):
        counters.authorizeCalls -= 1
        deny(number, "cannot call AuthorizeApp of the agent of UID \(call.uid): \(problem)", &out)
        return
      case .failed(let problem): result = .failure(FaceError(name: BusError.Name.failed, text: problem))
      case .maxLevel: result = .failure(FaceError(name: BusError.Name.failed, text: "did not authorize"))
      }
      guard !call.timedOut, clients[number]?.start.pending != nil else { return }
      authorized(number, level: level, result, &out)
    case .register(let callID, let sender, let uid, let desktopID):
      guard !call.timedOut else { return }
      switch answer {
      case .maxLevel(let level):
        register(Agent(name: sender, uid: uid, desktopID: desktopID, maxLevel: level), &out)
        out.append(.reply(callID, []))
        apply(uid: uid, &out)
        agentArrived(for: uid, &out)
      case .failed(let problem), .notSent(let problem):
        refuseAgent(callID, desktopID, problem, &out)
      case .authorized:
        refuseAgent(callID, desktopID, "its MaxAccuracyLevel is not a u", &out)
      }
    }
  }

  mutating func agentTimedOut(_ id: AgentCallID, _ out: inout Output) {
    guard let call = calls[id], !call.timedOut else { return }
    calls[id]?.timedOut = true
    counters.agentTimeouts += 1
    let wait = TimeFormat.duration(limits.agentTimeout)
    switch call.purpose {
    case .authorize(let number, _, let desktopID, _):
      guard clients[number]?.start.pending != nil else { return }
      deny(
        number,
        "the agent of UID \(call.uid) did not answer AuthorizeApp for '\(desktopID)' within \(wait); its answer, if it comes, is kept for the next Start",
        &out)
    case .register(let callID, _, _, let desktopID):
      refuseAgent(callID, desktopID, "it did not answer for its MaxAccuracyLevel within \(wait)", &out)
    }
  }

  /// AddAgent of `desktopID` answered with an error saying `why`, and counted.
  private mutating func refuseAgent(_ callID: CallID, _ desktopID: String, _ why: String, _ out: inout Output)
  {
    counters.agentsRefused += 1
    out.append(.fail(callID, name: BusError.Name.failed, text: "\(desktopID) not added as agent: \(why)"))
  }

  mutating func register(_ agent: Agent, _ out: inout Output) {
    if let old = agents[agent.uid], old.name != agent.name {
      agents[agent.uid] = nil
      if !clients.values.contains(where: { $0.owner == old.name })
        && !agents.values.contains(where: { $0.name == old.name })
      {
        out.append(.forgetPeer(old.name))
      }
    }
    out.append(.watchAgent(uid: agent.uid, name: agent.name))
    agents[agent.uid] = agent
    counters.agentsAdded += 1
    logRepeatable(
      .info,
      "GeoClue: agent '\(agent.desktopID)' registered for uid \(agent.uid) (MaxAccuracyLevel \(agent.maxLevel))",
      &out)
  }

  /// The agent changed MaxAccuracyLevel: applied to its user's clients at once (`apply`).
  mutating func agentLevelChanged(_ name: String, _ level: UInt32, _ out: inout Output) {
    guard let uid = agents.first(where: { $0.value.name == name })?.key else { return }
    agents[uid]?.maxLevel = level
    logRepeatable(.info, "GeoClue: the agent of uid \(uid) set MaxAccuracyLevel \(level)", &out)
    apply(uid: uid, &out)
  }

  /// Applies the agent's MaxAccuracyLevel to its user's clients, when it changes and when the
  /// agent registers: at 0 the active clients stop (Active goes false, as in GeoClue); above
  /// 0 the ones an agent stopped start again without a new question, and the active ones are
  /// served at the new cap at once (`recap`). GeoClue 2.6 acts on 0 and not 0 only, and only
  /// for the agent a client was made with (docs/GEOCLUE.md, differences).
  mutating func apply(uid: UInt32, _ out: inout Output) {
    guard let level = agents[uid]?.maxLevel else { return }
    for number in clients.keys.sorted() {
      guard let client = clients[number], client.peer.uid == uid else { continue }
      if level == 0 {
        guard client.active else { continue }
        endSession(number, &out)
        clients[number]?.start.stoppedByAgent = true
      } else if client.start.stoppedByAgent {
        clients[number]?.start.stoppedByAgent = false
        // Unless its app lost its authorization meanwhile (`locctl apps deny`).
        guard let key = client.start.identity?.key, apps(key).0.allowsInUse else { continue }
        beginSession(number, &out)
      } else {
        recap(number, &out)
      }
    }
  }

  /// Serves an active client at the level its user's agent allows now. When that moves it
  /// between reduced and full accuracy (and its app's own decision does not hold it at
  /// reduced either way), its updates start again at the new accuracy, and the position the
  /// engine hands it then is signalled whatever the thresholds (decision 0032).
  mutating func recap(_ number: ClientNumber, _ out: inout Output) {
    guard let client = clients[number], client.active, client.served.inSession,
      let old = client.served.grantedLevel, let key = client.start.identity?.key
    else { return }
    let new = level(of: number)
    guard new != old else { return }
    clients[number]?.served.grantedLevel = new
    let app = apps(key).0.accuracy
    func served(_ level: GeoClueAccuracyLevel) -> AccuracyAuthorization { level.isReduced ? .reduced : app }
    logRepeatable(
      .info,
      "GeoClue: '\(client.desktopID)' of uid \(client.peer.uid) now at level \(new.rawValue) (\(served(new).rawValue) accuracy), its agent's MaxAccuracyLevel",
      &out)
    // The updates follow the level (an app decided reduced gets full positions only by a
    // temporary grant, asked for below); what the client sees changes with `served`.
    guard new.isReduced != old.isReduced else { return }
    if served(new) != served(old) { clients[number]?.served.mustSignal = true }
    out.append(.restartUpdates(number, new.isReduced ? .reduced : .full))
    askFullAccuracyIfHeld(number, at: new, &out)
  }
}
