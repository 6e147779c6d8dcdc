import LocClient
import LocCore
import LocProtocol

extension Link {
  /// The reading thread: each message to its waiter or to the event stream, until the
  /// connection ends; then every waiter hears why and the stream finishes.
  func readLoop() {
    var buffer: [UInt8] = []
    var why: ControlClient.Failure
    while true {
      do throws(ControlClient.Failure) {
        let message = try ControlClient.read(socket, &buffer, path: path, timeout: nil)
        handle(message)
      } catch {
        why = error
        break
      }
    }
    let ids = state.withLock { s in
      s.closed = why
      return Array(s.slots.keys)
    }
    for id in ids { deliver(id, .failure(why)) }
    events.yield(.error(why))
    events.finish()
  }

  /// One message from locd.
  func handle(_ message: ServerMessage) {
    let first = state.withLock { s in
      defer { s.greeted = true }
      return !s.greeted
    }
    if first { return answer(Link.greetingID, message) }
    switch message {
    case .reply(let id, _), .error(let id?, _):
      answer(id, message)
    case .error(nil, let reply):
      // Pushed without a request (slow-consumer, a line locd could not read).
      events.yield(.error(.daemon(reply)))
    case .event(let event):
      deliver(event)
    case .greeting:
      break
    }
  }

  /// Hands `message` to request `id`; a reply that carries the authorization updates the
  /// one kept, before the caller sees it.
  private func answer(_ id: RequestID, _ message: ServerMessage) {
    let carries = state.withLock { $0.slots[id]?.carriesAuthorization ?? false }
    if carries, case .reply(_, let result) = message,
      let decoded = try? AuthorizationResult(json: result, path: WirePath().member("result"))
    {
      state.withLock { $0.authorization = decoded.authorization }
    }
    deliver(id, .success(message))
  }

  /// An event to the stream, in the library's terms.
  private func deliver(_ event: EventMessage) {
    switch event.data {
    case .authorization(let view):
      state.withLock { $0.authorization = view }
      events.yield(.authorization(view))
    case .location(let l):
      if let location = Location(l.position) {
        state.withLock { $0.location = location }
        events.yield(.location(location))
      } else {
        events.yield(.other(name: event.data.name, payload: event.data.json))
      }
    case .beaconsRanged, .beaconRegion:
      events.yield(LocationManagerEvent(beacon: event.data)!)
    case .region(let r):
      events.yield(.region(r, at: event.time) ?? .other(name: event.data.name, payload: event.data.json))
    case .visit(let v):
      events.yield(.visit(v) ?? .other(name: event.data.name, payload: event.data.json))
    case .heading(let h):
      events.yield(.heading(Heading(h)))
    default:
      events.yield(.other(name: event.data.name, payload: event.data.json))
    }
  }
}
