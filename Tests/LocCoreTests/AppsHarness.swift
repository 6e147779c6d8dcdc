import LocCore

/// App sessions and agents driven through the engine, as the shell would: hellos with a
/// claim and a unit, requests, and what each session was pushed.
extension EngineHarness {
  /// Says hello as app `app` of `uid` (in `unit`); the hello's result.
  @discardableResult
  mutating func app(
    _ id: SessionID, _ app: String?, uid: UInt32 = 1000, unit: PeerUnit = .none, access: AccessLevel = .none
  ) -> Result<Response, RequestError>? {
    let hello = SessionHello(
      peer: Peer(pid: Int32(id.raw), uid: uid, gid: uid), access: access, client: "test", app: app, unit: unit
    )
    return reply(to: handle(.sessionOpened(id, hello, reply: .number(0))))
  }

  /// Opens a plain session (locctl, an agent) of `uid`.
  mutating func plain(_ id: SessionID, uid: UInt32 = 1000, access: AccessLevel = .none) {
    handle(.sessionOpened(id, Peer(pid: Int32(id.raw), uid: uid, gid: uid), access, client: "locctl"))
  }

  /// Sends `request` from session `id`; its reply.
  @discardableResult
  mutating func send(_ id: SessionID, _ request: Request) -> Result<Response, RequestError>? {
    reply(to: handle(.requestReceived(id, .number(7), request)))
  }

  func reply(to effects: [Effect]) -> Result<Response, RequestError>? {
    for e in effects { if case .reply(_, _, let r) = e { return r } }
    return nil
  }

  /// What `id` was pushed, in order.
  func pushed(to id: SessionID) -> [Notice] {
    log.compactMap {
      if case .push(let s, let n, _) = $0.effect, s.contains(id) { return n } else { return nil }
    }
  }

  /// The location events `id` got.
  func locations(_ id: SessionID) -> [ResolvedPosition] {
    pushed(to: id).compactMap { if case .location(let r, _) = $0 { return r } else { return nil } }
  }

  /// The significant changes `id` got.
  func significantChanges(_ id: SessionID) -> [Position] {
    pushed(to: id).compactMap {
      if case .significantChange(_, let to, _) = $0 { return to } else { return nil }
    }
  }

  /// The authorization events `id` got.
  func authorizations(_ id: SessionID) -> [AppStatusReport] {
    pushed(to: id).compactMap { if case .authorization(let r) = $0 { return r } else { return nil } }
  }

  /// The prompts agent `id` was given.
  func prompts(_ id: SessionID) -> [AppPrompt] {
    pushed(to: id).compactMap { if case .agentPrompt(let p) = $0 { return p } else { return nil } }
  }

  /// The app status in a reply.
  static func status(_ r: Result<Response, RequestError>?) -> AppStatusReport? {
    switch r {
    case .success(.appStatus(let s))?: return s
    case .success(.hello(let h))?: return h.app
    default: return nil
    }
  }

  /// The apps part of status.
  var appsReport: AppsReport? { engine.status(at: now).apps }

  /// An apps counter by name.
  func appsCounter(_ name: String) -> Int? {
    engine.status(at: now).apps?.counters.first { $0.name == name }?.value
  }

  /// The apps store as the shell writes it (`Engine.appsStore`), once the engine asked for
  /// a write (nil: it never did).
  var lastStore: AppStore? {
    log.contains { if case .persistApps = $0.effect { true } else { false } } ? engine.appsStore : nil
  }
}
