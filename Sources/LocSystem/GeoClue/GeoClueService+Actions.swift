import CLocBusShim
import CLocShim
import LocCore

/// The face's actions carried out on the bus, the loop and the engine.
extension GeoClueService {
  /// The engine request ids of a client's session: the hello, its updates, the rest.
  static let helloRequest = RequestID.number(0)
  static let updatesRequest = RequestID.number(1)
  static let otherRequest = RequestID.number(2)
  /// The compass's turn, in degrees, that updates a client's Location in place.
  static let headingFilter = 1.0

  func perform(_ action: GeoClueFace.Action) {
    switch action {
    case .reply(let id, let values):
      if let call = handles.calls.removeValue(forKey: id) { answer(call, values.map(\.busValue)) }
    case .fail(let id, let name, let text):
      if let call = handles.calls.removeValue(forKey: id) { fail(call, name, text) }
    case .exportClient(let number, let owner, let id): export(number, owner: owner, answering: id)
    case .unexportClient(let number): handles.clients.removeValue(forKey: number)?.removeAll()
    case .clientChanged(let number, let changes):
      handles.clients[number]?.emitChanged(changes.map { ($0.name, $0.value.busValue) })
    case .publishLocation(let number, let values, let supersede):
      handles.clients[number]?.publish(values, supersedeAtOnce: supersede)
    case .refreshLocation(let number, let values): handles.clients[number]?.refresh(values)
    case .inUseChanged:
      do {
        try bus?.emitPropertiesChanged(
          path: GeoClueService.managerPath, interface: "org.freedesktop.GeoClue2.Manager", ["InUse"])
      } catch {
        handlers.log(.info, "GeoClue: cannot announce InUse: \(error)")
      }
    case .callAgent(let id, let name, let question): callAgent(id, name, question)
    case .watchAgent(let uid, let name): watch(agent: name, uid: uid)
    case .unwatchAgent(let uid): handles.agentWatches[uid] = nil
    case .arm(let timer, let after): arm(timer, after: after)
    case .cancel(let timer): handles.timers.removeValue(forKey: timer)?.cancel()
    case .forgetPeer(let name): peers.forgetIfIdle(name)
    case .openSession(let number, let peer, let identity, let accuracy):
      openSession(number, peer, identity, accuracy)
    case .restartUpdates(let number, let accuracy):
      guard let session = handles.clients[number]?.session else { return }
      handlers.request(
        session, GeoClueService.otherRequest, .startUpdates(AppSession.Updates(accuracy: accuracy)))
    case .askFullAccuracy(let number, let purpose):
      guard let session = handles.clients[number]?.session else { return }
      handlers.request(session, GeoClueService.otherRequest, .requestTemporaryFullAccuracy(purpose: purpose))
    case .closeSession(let number):
      guard let client = handles.clients[number], let session = client.session else { return }
      client.session = nil
      handles.sessions[session] = nil
      handlers.closed(session)
    case .remember(let key, let change): handlers.remember(key, change)
    case .log(let level, let text): handlers.log(level, text)
    }
  }

  private func export(_ number: GeoClueFace.ClientNumber, owner: String, answering id: GeoClueFace.CallID) {
    guard let bus else { return }
    let client = GeoClueClient(number: number, owner: owner, service: self)
    do {
      try client.register(
        on: bus, interface: GeoClueClient.interface, vtable: locshim_geoclue_client_vtable())
    } catch {
      feed(.exportFailed(number, id, "\(error)"))
      return
    }
    handles.clients[number] = client
    perform(.reply(id, [.objectPath(client.path)]))
  }

  /// Opens the client's engine session as its app's, in use, subscribed to its authorization,
  /// its updates at `accuracy`; the engine's answer arrives through `reply` (often before this
  /// returns: a refused hello closes the session again at once).
  private func openSession(
    _ number: GeoClueFace.ClientNumber, _ peer: Peer, _ identity: AppIdentity,
    _ accuracy: AccuracyAuthorization
  ) {
    guard let client = handles.clients[number] else { return }
    let session = sessionIDs.take()
    client.session = session
    handles.sessions[session] = number
    handlers.opened(session, peer, identity)
    guard client.session == session else { return }  // the hello was refused
    handlers.request(session, GeoClueService.otherRequest, .setActivity(.foreground))
    handlers.request(session, GeoClueService.otherRequest, .subscribe([.authorization]))
    handlers.request(
      session, GeoClueService.updatesRequest, .startUpdates(AppSession.Updates(accuracy: accuracy)))
    // The compass while the client is started (a `compass:` source claims it only then),
    // for Heading while the course is unknown or the device still (decision 0054).
    handlers.request(
      session, GeoClueService.otherRequest, .startHeading(filter: GeoClueService.headingFilter))
  }

  private func arm(_ timer: GeoClueFace.Timer, after: Duration) {
    handles.timers.removeValue(forKey: timer)?.cancel()
    guard
      let t = try? loop.timer(
        clock: .monotonic, accuracyMicroseconds: 100_000,
        { [weak self] in
          guard let self, self.handles.timers.removeValue(forKey: timer) != nil else { return }
          self.feed(.timerFired(timer))
        })
    else {
      feed(.timerFired(timer))
      return
    }
    handles.timers[timer] = t
    t.arm(atMicroseconds: loop.monotonicMicroseconds + GeoClueService.microseconds(after))
  }

  /// Calls an agent. No timeout of sd-bus's own: the slot is given back when the bus answers,
  /// which it does when the agent replies or leaves (or at the bus's reply_timeout, if it has
  /// one); the face's own deadline is a timer (dbus-daemon keeps the call counted till then).
  private func callAgent(_ id: GeoClueFace.AgentCallID, _ name: String, _ question: GeoClueFace.AgentQuestion)
  {
    guard let bus else {
      return feed(.agentAnswered(id, .notSent("locd is not connected to the system bus")))
    }
    let (interface, member, arguments): (String, String, [BusMessage.Value])
    switch question {
    case .authorize(let desktopID, let level):
      (interface, member, arguments) = (
        GeoClueAgent.interface, "AuthorizeApp", [.string(desktopID), .uint32(level.rawValue)]
      )
    case .maxLevel:
      (interface, member, arguments) = (
        "org.freedesktop.DBus.Properties", "Get",
        [.string(GeoClueAgent.interface), .string("MaxAccuracyLevel")]
      )
    }
    let connection = ObjectIdentifier(bus)
    do {
      try bus.call(
        destination: name, path: GeoClueAgent.path, interface: interface, member: member,
        arguments: arguments,
        timeoutMicroseconds: BusConnection.untilAnswered
      ) { [weak self] reply in
        guard let self, self.bus.map(ObjectIdentifier.init) == connection else { return }
        self.feed(.agentAnswered(id, GeoClueService.answer(in: reply, to: question)))
      }
    } catch {
      feed(.agentAnswered(id, .notSent("\(error)")))
    }
  }

  /// An agent's reply read as the face's answer.
  static func answer(in reply: BusMessage, to question: GeoClueFace.AgentQuestion) -> GeoClueFace.AgentAnswer
  {
    switch question {
    case .authorize:
      if let problem = reply.errorText { return .failed("did not authorize: \(problem)") }
      guard let yes = try? reply.readBool(), let allowed = try? reply.readUInt32() else {
        return .failed("answered AuthorizeApp with something else than (bu)")
      }
      return .authorized(yes ? GeoClueAccuracyLevel.atMost(allowed) : .none)
    case .maxLevel:
      if let problem = reply.errorText { return .failed("cannot read its MaxAccuracyLevel: \(problem)") }
      guard let level = try? reply.readVariantUInt32() else {
        return .failed("its MaxAccuracyLevel is not a u")
      }
      return .maxLevel(level)
    }
  }

  private func watch(agent name: String, uid: UInt32) {
    let rule =
      "type='signal',sender='\(name)',path='\(GeoClueAgent.path)',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'"
    handles.agentWatches[uid] = try? bus?.match(rule) { [weak self] message in
      guard let self, let level = GeoClueService.maxLevelChange(in: message) else { return }
      self.feed(.agentLevelChanged(name: name, level: level))
    }
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

  /// `d` in microseconds (a Duration of config: at most days).
  static func microseconds(_ d: Duration) -> UInt64 {
    UInt64(d.components.seconds) * 1_000_000 + UInt64(d.components.attoseconds / 1_000_000_000_000)
  }
}
