import LocCore

/// Agents: AddAgent registers the caller as the agent of its own uid (replacing an earlier
/// one, as GeoClue does); its MaxAccuracyLevel is read at once, applied to that user's
/// running clients, and watched.
extension GeoClueService {
  func addAgent(_ call: BusMessage) {
    guard let bus, let sender = call.sender else { return }
    guard let id = try? call.readText(), GeoClueClient.isDesktopID(id) else {
      counters.agentsRefused += 1
      fail(call, BusError.Name.invalidArgs, "AddAgent takes the agent's desktop id")
      return
    }
    peers.credentials(of: sender, on: bus) { [weak self] result in
      guard let self, let bus = self.bus else { return }
      switch result {
      case .failure(let problem):
        self.counters.agentsRefused += 1
        self.fail(call, BusError.Name.failed, problem.description)
      case .success(let peer):
        self.readMaxLevel(of: sender, uid: peer.uid) { level in
          switch level {
          case .failure(let problem):
            self.counters.agentsRefused += 1
            self.fail(call, problem.name, "\(id) not added as agent: \(problem.text)")
          case .success(let max):
            let agent = GeoClueAgent(name: sender, uid: peer.uid, desktopID: id, maxLevel: max)
            self.register(agent, on: bus)
            self.answer(call)
            self.apply(agent)
            self.agentArrived(for: peer.uid)
          }
        }
      }
    }
  }

  /// Reads the agent's MaxAccuracyLevel (org.freedesktop.DBus.Properties.Get), a call to the
  /// agent of `uid` like AuthorizeApp (`callAgent`): refused over that user's share, given up
  /// after AgentTimeout. `done` is called once, with the level or the error to answer.
  private func readMaxLevel(
    of name: String, uid: UInt32, _ done: @escaping (Result<UInt32, AgentProblem>) -> Void
  ) {
    let refusal = callAgent(
      name, uid: uid, interface: "org.freedesktop.DBus.Properties", member: "Get",
      arguments: [.string(GeoClueAgent.interface), .string("MaxAccuracyLevel")],
      answered: { reply, late in
        guard !late else { return }
        if let problem = reply.errorText {
          done(.failure(AgentProblem("cannot read its MaxAccuracyLevel: \(problem)")))
        } else if let level = try? reply.readVariantUInt32() {
          done(.success(level))
        } else {
          done(.failure(AgentProblem("its MaxAccuracyLevel is not a u")))
        }
      },
      timedOut: { [weak self] in
        let wait = self.map { TimeFormat.duration($0.limits.agentTimeout) } ?? "the timeout"
        done(.failure(AgentProblem("it did not answer for its MaxAccuracyLevel within \(wait)")))
      })
    if let refusal {
      done(
        .failure(
          AgentProblem(
            refusal.text, name: refusal.isLimit ? BusError.Name.limitsExceeded : BusError.Name.failed)))
    }
  }

  /// Why an agent was not added: the text, and the D-Bus error to answer AddAgent with.
  struct AgentProblem: Error {
    /// In words.
    var text: String
    /// The D-Bus error name.
    var name: String
    /// A problem; `name` is Failed unless a limit refused.
    init(_ text: String, name: String = BusError.Name.failed) {
      self.text = text
      self.name = name
    }
  }

  private func register(_ agent: GeoClueAgent, on bus: BusConnection) {
    if let old = agents[agent.uid], old.name != agent.name {
      peers.peers[old.name]?.isAgent = false
      peers.forgetIfIdle(old.name)
    }
    let rule =
      "type='signal',sender='\(agent.name)',path='\(GeoClueAgent.path)',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'"
    agent.match = try? bus.match(rule) { [weak self, weak agent] message in
      guard let self, let agent, self.agents[agent.uid] === agent else { return }
      if let level = GeoClueService.maxLevelChange(in: message) { self.agentLevelChanged(agent, to: level) }
    }
    agents[agent.uid] = agent
    peers.peers[agent.name]?.isAgent = true
    counters.agentsAdded += 1
    logRepeatable(
      .info,
      "GeoClue: agent '\(agent.desktopID)' registered for uid \(agent.uid) (MaxAccuracyLevel \(agent.maxLevel))"
    )
  }

  /// MaxAccuracyLevel in a PropertiesChanged of the Agent interface, if it is there.
  static func maxLevelChange(in message: BusMessage) -> UInt32? {
    guard (try? message.readText()) == GeoClueAgent.interface,
      (try? message.enter(BusMessage.Code.array, "{sv}")) == true
    else { return nil }
    while (try? message.enter(BusMessage.Code.dictEntry, "sv")) == true {
      guard let key = try? message.readText() else { return nil }
      if key == "MaxAccuracyLevel" { return try? message.readVariantUInt32() }
      guard (try? message.skip("v")) != nil, (try? message.exit()) != nil else { return nil }
    }
    return nil
  }

  /// The agent changed MaxAccuracyLevel: applied to its user's clients at once (`apply`).
  func agentLevelChanged(_ agent: GeoClueAgent, to level: UInt32) {
    agent.maxLevel = level
    logRepeatable(.info, "GeoClue: the agent of uid \(agent.uid) set MaxAccuracyLevel \(level)")
    apply(agent)
  }

  /// Applies the agent's MaxAccuracyLevel to its user's clients, when it changes and when the
  /// agent registers (a new agent replacing one, as when a desktop shell restarts, or the
  /// first after one left): at 0 the active clients stop (Active goes false, as in GeoClue);
  /// above 0 the ones an agent stopped start again without a new question, and the active
  /// ones are served at the new cap at once (`recap`: lowered below street, the reduced
  /// grid's cell from now on; raised, full again as far as their own level and their app's
  /// decision allow). GeoClue 2.6 acts on 0 and not 0 only, and only for the agent a client
  /// was made with (docs/GEOCLUE.md, differences).
  func apply(_ agent: GeoClueAgent) {
    let level = agent.maxLevel
    for client in clients.values where client.peer.uid == agent.uid {
      if level == 0 {
        guard client.active else { continue }
        endSession(client)
        client.stoppedByAgent = true
      } else if client.stoppedByAgent {
        client.stoppedByAgent = false
        // Unless its app lost its authorization meanwhile (`locctl apps deny`).
        guard let key = client.identity?.key, handlers.authorization(key).0.allowsInUse else { continue }
        beginSession(client)
      } else {
        recap(client)
      }
    }
  }
}
