import CLocShim
import LocCore

/// The Manager's methods: client objects made, reused and deleted, agents registered; and
/// what happens when a connection leaves.
extension GeoClueService {
  /// GetClient (`reuse`: the connection's existing client if it has one) and CreateClient.
  func getClient(_ call: BusMessage, reuse: Bool) {
    guard let bus, let sender = call.sender else { return }
    func existing() -> GeoClueClient? {
      clients.values.filter { $0.owner == sender }.min { $0.number < $1.number }
    }
    if reuse, let client = existing() {
      answer(call, [.objectPath(client.path)])
      return
    }
    peers.credentials(of: sender, on: bus) { [weak self] result in
      guard let self, let bus = self.bus else { return }
      let peer: Peer
      switch result {
      case .failure(let problem):
        self.fail(call, BusError.Name.failed, problem.description)
        return
      case .success(let p): peer = p
      }
      if reuse, let client = existing() {
        self.answer(call, [.objectPath(client.path)])
        return
      }
      if let refusal = self.clientRefusal(peer, owned: self.peers.peers[sender]?.clients ?? 0) {
        self.counters.clientsRefused += 1
        self.fail(call, BusError.Name.limitsExceeded, refusal)
        self.peers.forgetIfIdle(sender)
        return
      }
      let client = GeoClueClient(number: self.nextClient, owner: sender, peer: peer, service: self)
      do {
        try client.register(
          on: bus, interface: GeoClueClient.interface, vtable: locshim_geoclue_client_vtable())
      } catch {
        self.fail(call, BusError.Name.failed, "cannot publish the client: \(error)")
        return
      }
      self.nextClient += 1
      self.clients[client.path] = client
      self.clientSlots.take(uid: peer.uid)
      self.peers.peers[sender]?.clients += 1
      self.counters.clientsCreated += 1
      self.handlers.log(.debug, "GeoClue: \(client.path) for \(sender) (uid \(peer.uid), pid \(peer.pid))")
      self.answer(call, [.objectPath(client.path)])
    }
  }

  /// Why `peer`, whose connection owns `owned` clients, gets no other now (nil: it gets one).
  /// Like the socket's connections (`ClientSlots`): at most MaxClientsPerUser for a uid below
  /// admin access, and the last ReservedAdminClients of MaxClients for administrators, so no
  /// user, however many connections it opens, takes the clients root and other users need.
  private func clientRefusal(_ peer: Peer, owned: Int) -> String? {
    guard owned < limits.maxClientsPerConnection else {
      return "locd serves at most \(limits.maxClientsPerConnection) GeoClue clients per connection"
    }
    switch clientSlots.decide(uid: peer.uid, admin: handlers.isAdmin(peer)) {
    case .admit: return nil
    case .full: return "locd serves at most \(limits.maxClients) GeoClue clients in all"
    case .reservedForAdmin:
      counters.clientsRefusedReserved += 1
      return
        "locd serves at most \(limits.maxClients) GeoClue clients, the last \(limits.reservedAdminClients) of them to administrators only"
    case .perUserLimit:
      counters.clientsRefusedPerUser += 1
      return
        "locd serves at most \(limits.maxClientsPerUser) GeoClue clients per user (UID \(peer.uid) has them)"
    }
  }

  /// DeleteClient: the caller's own client at that path goes; like GeoClue, any other path is
  /// ignored and the call succeeds.
  func deleteClient(_ call: BusMessage) {
    guard let path = try? call.readText(BusMessage.Code.objectPath) else {
      fail(call, BusError.Name.invalidArgs, "DeleteClient takes an object path")
      return
    }
    if let client = clients[path], client.owner == call.sender {
      remove(client, answering: "the client was deleted")
    }
    answer(call)
  }

  /// Removes a client: its pending Start is answered, its session closed, its objects gone.
  func remove(_ client: GeoClueClient, answering why: String) {
    if let pending = client.pendingStart {
      client.pendingStart = nil
      try? pending.fail(BusError.Name.accessDenied, why)
    }
    if let session = client.session {
      client.session = nil
      sessions[session] = nil
      handlers.closed(session)
    }
    clients[client.path] = nil
    clientSlots.release(uid: client.peer.uid)
    client.removeAll()
    if let peer = peers.peers[client.owner] {
      peer.clients -= 1
      peers.forgetIfIdle(client.owner)
    }
    updateInUse()
  }

  /// A connection left the bus: its clients go, and so does its agent.
  func peerVanished(_ name: String) {
    for client in clients.values where client.owner == name { remove(client, answering: "\(name) left") }
    for (uid, agent) in agents where agent.name == name {
      agents[uid] = nil
      logRepeatable(.info, "GeoClue: the agent of uid \(uid) (\(agent.desktopID)) left")
    }
    peers.forget(name)
  }

  /// Publishes InUse (broadcast, as GeoClue does: agents show it) when it changes.
  func updateInUse() {
    let now = clients.values.contains { $0.active }
    guard now != inUse else { return }
    inUse = now
    guard let bus else { return }
    do {
      try bus.emitPropertiesChanged(
        path: GeoClueService.managerPath, interface: "org.freedesktop.GeoClue2.Manager", ["InUse"])
    } catch {
      handlers.log(.info, "GeoClue: cannot announce InUse: \(error)")
    }
  }

  /// Answers `call` with `values`, logging a failure to send.
  func answer(_ call: BusMessage, _ values: [BusMessage.Value] = []) {
    guard let bus else { return }
    do { try call.answer(on: bus, values) } catch {
      handlers.log(.info, "GeoClue: cannot answer \(call.member ?? "a call"): \(error), ignoring")
    }
  }

  /// Answers `call` with an error.
  func fail(_ call: BusMessage, _ name: String, _ text: String) {
    do { try call.fail(name, text) } catch {
      handlers.log(.info, "GeoClue: cannot answer \(call.member ?? "a call"): \(error), ignoring")
    }
  }
}
