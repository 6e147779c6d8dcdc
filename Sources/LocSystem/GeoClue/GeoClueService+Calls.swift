import LocCore

/// The bus's side of the face: method calls and property accesses become the face's inputs,
/// with what the bus and the kernel can tell looked up first (the caller's credentials, the
/// app its DesktopId and cgroup make it).
extension GeoClueService {
  /// Hands `input` to the face and carries out what it says.
  func feed(_ input: GeoClueFace.Input) {
    for action in face.handle(input, at: loop.now) { perform(action) }
  }

  /// GetClient (`reuse`: the connection's existing client if it has one) and CreateClient.
  func getClient(_ call: BusMessage, reuse: Bool) {
    guard let bus, let sender = call.sender else { return }
    if reuse, let number = face.clientOwned(by: sender) {
      answer(call, [.objectPath(GeoClueFace.path(of: number))])
      return
    }
    peers.credentials(of: sender, on: bus) { [weak self] result in
      guard let self, self.bus != nil else { return }
      switch result {
      case .failure(let problem): self.fail(call, BusError.Name.failed, problem.description)
      case .success(let peer):
        let admin = self.handlers.isAdmin(peer)
        self.feed(.getClient(self.handles.hold(call), sender: sender, peer: peer, admin: admin, reuse: reuse))
      }
    }
  }

  /// DeleteClient.
  func deleteClient(_ call: BusMessage) {
    guard let sender = call.sender, let path = try? call.readText(BusMessage.Code.objectPath) else {
      fail(call, BusError.Name.invalidArgs, "DeleteClient takes an object path")
      return
    }
    feed(.deleteClient(handles.hold(call), sender: sender, path: path))
  }

  /// AddAgent: the caller's credentials, then the face.
  func addAgent(_ call: BusMessage) {
    guard let bus, let sender = call.sender else { return }
    guard let id = try? call.readText(), GeoClueFace.isDesktopID(id) else {
      feed(.addAgent(handles.hold(call), sender: sender, peer: nil, desktopID: nil))
      return
    }
    peers.credentials(of: sender, on: bus) { [weak self] result in
      guard let self, self.bus != nil else { return }
      switch result {
      case .failure(let problem): self.feed(.addAgentFailed(self.handles.hold(call), problem.description))
      case .success(let peer):
        self.feed(.addAgent(self.handles.hold(call), sender: sender, peer: peer, desktopID: id))
      }
    }
  }

  /// Start and Stop of client `number`: for a Start the app is looked up first (when the face
  /// would ask: the owner's inactive client with a DesktopId and no Start pending).
  func clientCall(start: Bool, _ number: GeoClueFace.ClientNumber, _ call: BusMessage) {
    let sender = call.sender ?? ""
    guard start else {
      feed(.stop(handles.hold(call), number, sender: sender))
      return
    }
    var identity: Result<AppIdentity, RequestError>? = nil
    if let client = face.client(number), client.owner == sender, !client.active, client.start.pending == nil,
      !client.desktopID.isEmpty
    {
      identity = handlers.identify(client.peer, client.desktopID)
    }
    feed(.start(handles.hold(call), number, sender: sender, identity: identity))
  }

  /// A property read of client `number`.
  func readProperty(_ name: String, of number: GeoClueFace.ClientNumber, from sender: String?)
    -> Result<BusMessage.Value, GeoClueFace.FaceError>
  {
    face.read(name, of: number, from: sender).map { value in
      name == "Location" ? .objectPath(handles.clients[number]?.locationPath ?? "/") : value.busValue
    }
  }

  /// A property write of client `number`: the value read as the property's type, then the face.
  func writeProperty(
    _ name: String, of number: GeoClueFace.ClientNumber, from sender: String?, _ value: BusMessage
  )
    throws(Errno) -> GeoClueFace.FaceError?
  {
    let typed: GeoClueFace.Value
    switch name {
    case "DesktopId": typed = .string(try value.readText())
    case "DistanceThreshold", "TimeThreshold", "RequestedAccuracyLevel":
      typed = .uint32(try value.readUInt32())
    default: typed = .bool(false)  // refused by the face: no such property
    }
    let id = handles.take()
    var refusal: GeoClueFace.FaceError? = nil
    let input = GeoClueFace.Input.setProperty(id, number, sender: sender ?? "", name: name, typed)
    for action in face.handle(input, at: loop.now) {
      switch action {
      case .fail(id, let name, let text): refusal = GeoClueFace.FaceError(name: name, text: text)
      case .reply(id, _): continue
      default: perform(action)
      }
    }
    return refusal
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

extension GeoClueFace.Value {
  /// The value as the bus writes it.
  var busValue: BusMessage.Value {
    switch self {
    case .bool(let b): return .bool(b)
    case .uint32(let u): return .uint32(u)
    case .string(let s): return .string(s)
    case .objectPath(let p): return .objectPath(p)
    }
  }
}
