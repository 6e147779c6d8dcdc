import LocCore

/// Client objects: made, reused and deleted within the limits, their properties, their
/// locations, and what goes when a connection leaves.
extension GeoClueFace {
  /// Most client objects of one connection.
  static let maxClientsPerConnection = 64

  mutating func getClient(
    _ call: CallID, sender: String, peer: Peer, admin: Bool, reuse: Bool, _ out: inout Output
  ) {
    if reuse, let number = clientOwned(by: sender) {
      out.append(.reply(call, [.objectPath(GeoClueFace.path(of: number))]))
      return
    }
    let owned = clients.values.filter { $0.owner == sender }.count
    if let refusal = clientRefusal(peer, admin: admin, owned: owned) {
      counters.clientsRefused += 1
      out.append(.fail(call, name: BusError.Name.limitsExceeded, text: refusal))
      if owned == 0 && !agents.values.contains(where: { $0.name == sender }) {
        out.append(.forgetPeer(sender))
      }
      return
    }
    let number = next.client
    next.client += 1
    clients[number] = Client(number: number, owner: sender, peer: peer)
    clientSlots.take(uid: peer.uid)
    counters.clientsCreated += 1
    out.append(
      .log(
        .debug, "GeoClue: \(GeoClueFace.path(of: number)) for \(sender) (uid \(peer.uid), pid \(peer.pid))"))
    out.append(.exportClient(number, owner: sender, call))
  }

  /// Why `peer`, whose connection owns `owned` clients, gets no other now (nil: it gets one).
  /// Like the socket's connections (`ClientSlots`): at most MaxClientsPerUser for a uid below
  /// admin access, and the last ReservedAdminClients of MaxClients for administrators, so no
  /// user, however many connections it opens, takes the clients root and other users need.
  private mutating func clientRefusal(_ peer: Peer, admin: Bool, owned: Int) -> String? {
    guard owned < GeoClueFace.maxClientsPerConnection else {
      return "locd serves at most \(GeoClueFace.maxClientsPerConnection) GeoClue clients per connection"
    }
    switch clientSlots.decide(uid: peer.uid, admin: admin) {
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

  /// The client object could not be published: it is forgotten and the call failed.
  mutating func exportFailed(_ number: ClientNumber, _ call: CallID, _ problem: String, _ out: inout Output) {
    guard let client = clients.removeValue(forKey: number) else { return }
    clientSlots.release(uid: client.peer.uid)
    counters.clientsCreated -= 1
    out.append(.fail(call, name: BusError.Name.failed, text: "cannot publish the client: \(problem)"))
  }

  /// DeleteClient: the caller's own client at that path goes; like GeoClue, any other path is
  /// ignored and the call succeeds.
  mutating func deleteClient(_ call: CallID, sender: String, path: String, _ out: inout Output) {
    if path.hasPrefix(GeoClueFace.clientPrefix),
      let number = ClientNumber(path.dropFirst(GeoClueFace.clientPrefix.count)),
      let client = clients[number], client.owner == sender
    {
      remove(number, answering: "the client was deleted", &out)
    }
    out.append(.reply(call, []))
  }

  /// A property read by `sender`: the value, or the error to answer (only the owner may read).
  public mutating func read(_ name: String, of number: ClientNumber, from sender: String?)
    -> Result<Value, FaceError>
  {
    guard let client = clients[number], sender == client.owner else {
      counters.strangersDenied += 1
      return .failure(FaceError(name: BusError.Name.accessDenied, text: "Access denied"))
    }
    switch name {
    case "Location": return .success(.objectPath("/"))  // the adapter knows the current object
    case "DistanceThreshold": return .success(.uint32(client.thresholds.distance))
    case "TimeThreshold": return .success(.uint32(client.thresholds.time))
    case "DesktopId": return .success(.string(client.desktopID))
    case "RequestedAccuracyLevel": return .success(.uint32(client.requestedLevel))
    case "Active": return .success(.bool(client.active))
    default: return .failure(FaceError(name: BusError.Name.failed, text: "no such property"))
    }
  }

  /// An error to answer a call with.
  public struct FaceError: Error, Hashable {
    /// The D-Bus error name.
    public var name: String
    /// In words.
    public var text: String
  }

  mutating func setProperty(
    _ call: CallID, _ number: ClientNumber, sender: String, name: String, _ value: Value, _ out: inout Output
  ) {
    guard var client = clients[number], sender == client.owner else {
      counters.strangersDenied += 1
      out.append(.fail(call, name: BusError.Name.accessDenied, text: "Access denied"))
      return
    }
    switch (name, value) {
    case ("DistanceThreshold", .uint32(let v)): client.thresholds.distance = v
    case ("TimeThreshold", .uint32(let v)): client.thresholds.time = v
    case ("RequestedAccuracyLevel", .uint32(let v)): client.requestedLevel = v
    case ("DesktopId", .string(let id)):
      guard GeoClueFace.isDesktopID(id) else {
        counters.invalidDesktopIDs += 1
        out.append(
          .fail(
            call, name: BusError.Name.invalidArgs,
            text:
              "DesktopId must be a desktop file id without '.desktop': at most \(GeoClueFace.maxDesktopID) bytes, no '/', no control characters"
          ))
        return
      }
      client.desktopID = id
    default:
      out.append(.fail(call, name: BusError.Name.failed, text: "no such property"))
      return
    }
    clients[number] = client
    out.append(.reply(call, []))
    out.append(.clientChanged(number, [Property(name: name, value: value)]))
  }

  /// Marks the client active or not and tells its connection.
  mutating func setActive(_ number: ClientNumber, _ value: Bool, _ out: inout Output) {
    guard let client = clients[number], client.active != value else { return }
    clients[number]?.active = value
    out.append(.clientChanged(number, [Property(name: "Active", value: .bool(value))]))
  }

  /// A location from the engine: its Heading from the compass while the course is unknown or
  /// the device still (`GeoClueLocationValues.withCompass`).
  mutating func located(_ number: ClientNumber, _ values: GeoClueLocationValues, _ out: inout Output) {
    guard let client = clients[number] else { return }
    clients[number]?.served.located = values
    update(number, values.withCompass(client.served.compass), &out)
  }

  /// A compass heading: the current Location (if any) again with it, which inside the
  /// thresholds updates the object in place.
  mutating func headed(_ number: ClientNumber, _ degrees: Double, _ out: inout Output) {
    guard let client = clients[number] else { return }
    clients[number]?.served.compass = degrees
    if let located = client.served.located { update(number, located.withCompass(degrees), &out) }
  }

  /// A new location from the engine. Past the thresholds it becomes a new Location object;
  /// inside them the current object is updated in place. After `mustSignal` was set, the next
  /// location other than the last signalled one is signalled whatever the thresholds, and
  /// the superseded object goes at once.
  mutating func update(_ number: ClientNumber, _ values: GeoClueLocationValues, _ out: inout Output) {
    guard let client = clients[number] else { return }
    let served = client.served
    let forced = served.mustSignal && values != served.lastSignalled
    guard forced || client.thresholds.signals(values, after: served.lastSignalled) else {
      if let shown = served.shown, shown != values {
        clients[number]?.served.shown = values
        out.append(.refreshLocation(number, values))
      }
      return
    }
    clients[number]?.served.lastSignalled = values
    clients[number]?.served.shown = values
    clients[number]?.served.mustSignal = false
    counters.locationsSignalled += 1
    out.append(.publishLocation(number, values, supersedeAtOnce: forced))
  }

  /// Removes a client: its pending Start is answered, its session closed, its objects gone.
  mutating func remove(_ number: ClientNumber, answering why: String, _ out: inout Output) {
    guard let client = clients.removeValue(forKey: number) else { return }
    if let pending = client.start.pending {
      out.append(.fail(pending, name: BusError.Name.accessDenied, text: why))
    }
    if client.start.waitingForAgent { out.append(.cancel(.agentWait(number))) }
    if client.served.inSession { out.append(.closeSession(number)) }
    clientSlots.release(uid: client.peer.uid)
    out.append(.unexportClient(number))
    if !clients.values.contains(where: { $0.owner == client.owner })
      && !agents.values.contains(where: { $0.name == client.owner })
    {
      out.append(.forgetPeer(client.owner))
    }
    updateInUse(&out)
  }

  /// A connection left the bus: its clients go, and so does its agent.
  mutating func peerVanished(_ name: String, _ out: inout Output) {
    for number in clients.keys.sorted() where clients[number]?.owner == name {
      remove(number, answering: "\(name) left", &out)
    }
    for (uid, agent) in agents.sorted(by: { $0.key < $1.key }) where agent.name == name {
      agents[uid] = nil
      out.append(.unwatchAgent(uid: uid))
      logRepeatable(.info, "GeoClue: the agent of uid \(uid) (\(agent.desktopID)) left", &out)
    }
    out.append(.forgetPeer(name))
  }

  /// Publishes InUse when it changes.
  mutating func updateInUse(_ out: inout Output) {
    let now = clients.values.contains { $0.active }
    guard now != inUse else { return }
    inUse = now
    out.append(.inUseChanged)
  }

  /// Everything tied to the connection goes: clients (their calls answered with `why`),
  /// agents and the calls to them (their answers, if they come, are not counted).
  mutating func stopped(_ why: String, _ out: inout Output) {
    for number in clients.keys.sorted() { remove(number, answering: why, &out) }
    for id in calls.keys.sorted() { out.append(.cancel(.agentTimeout(id))) }
    calls = [:]
    agentCalls = GeoClueAgentCalls(maxTotal: limits.maxAgentCalls, maxPerUser: limits.maxAgentCallsPerUser)
    agents = [:]
    inUse = false
  }
}
