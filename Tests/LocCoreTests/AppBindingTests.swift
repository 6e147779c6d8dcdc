import Testing

@testable import LocCore

/// A decision binds to the way the app was known (issue 28): one made for a Flatpak app or an
/// app in its systemd unit is not used by a same-uid process that only claims the id — its
/// hello is refused, counted, as a claim that contradicts the kernel is. A decision made for
/// the id alone (nobody verified seen) stays anyone's with that id; a reset unbinds.
@Suite struct AppBindingTests {
  static let id = "org.example.Maps"
  static let app = AppID(id)!
  static let key = AppKey(uid: 1000, app: app)
  static let flatpak = PeerUnit.flatpak(app, unit: "app-flatpak-org.example.Maps-42.scope")

  static func hello(_ h: inout EngineHarness, _ session: SessionID, unit: PeerUnit) -> RequestError? {
    // A Flatpak app need not claim its id; anyone else says it (a process in an app unit that
    // claims nothing is a plain session).
    let claim: String? = if case .flatpak = unit { nil } else { id }
    guard case .failure(let e)? = h.app(session, claim, unit: unit) else { return nil }
    return e
  }

  static func refusedCount(_ h: EngineHarness) -> Int? {
    h.engine.status(at: h.now).apps?.counters.first { $0.name == "identityRefused" }?.value
  }

  @Test func anAgentsAnswerForAFlatpakAppIsNotAClaimantsToUse() throws {
    var h = EngineHarness(at: AppsDeliveryTests.t0)
    var agent = AgentFlow(&h)
    #expect(Self.hello(&h, SessionID(1), unit: Self.flatpak) == nil)
    h.send(SessionID(1), .requestAuthorization(.whenInUse, purpose: "the map"))
    try agent.answer(&h, .allowWhileUsing)
    #expect(h.engine.appAuthorization.record(Self.key)?.decidedFor == .flatpak)
    // The same uid, outside the sandbox, saying it is the app: refused, counted.
    let before = Self.refusedCount(h) ?? 0
    let refusal = try #require(Self.hello(&h, SessionID(2), unit: .none))
    #expect(refusal.code == .identityMismatch && refusal.message.contains("Flatpak"), "\(refusal)")
    #expect(Self.refusedCount(h) == before + 1)
    // The Flatpak app itself, again: served.
    #expect(Self.hello(&h, SessionID(3), unit: Self.flatpak) == nil)
    // Kept across a restart (apps.json), and gone with a reset.
    let stored = try AppStore(decoding: AppStore(h.engine.appAuthorization.allRecords()).encoded())
    #expect(stored.records.first { $0.key == Self.key }?.decidedFor == .flatpak)
    h.plain(SessionID(9), uid: 0, access: .admin)
    h.send(SessionID(9), .changeApp(Self.app, uid: 1000, .reset))
    #expect(Self.hello(&h, SessionID(4), unit: .none) == nil, "a reset decision binds to nothing")
  }

  @Test func aGrantWhileTheAppWasSeenVerifiedBindsToItAndOneForTheIdAloneDoesNot() throws {
    var h = EngineHarness(at: AppsDeliveryTests.t0)
    h.plain(SessionID(9), uid: 0, access: .admin)
    // Nobody verified seen: `locctl apps grant` decides for the id, for anyone saying it.
    h.send(SessionID(9), .changeApp(Self.app, uid: 1000, .grant(.whenInUse, .full)))
    #expect(h.engine.appAuthorization.record(Self.key)?.decidedFor == nil)
    #expect(Self.hello(&h, SessionID(1), unit: .none) == nil)
    h.handle(.sessionClosed(SessionID(1)))
    // Once the app in its systemd unit was seen, a grant is that app's.
    let unit = PeerUnit.app(Self.app, unit: "app-gnome-org.example.Maps@3.service")
    #expect(Self.hello(&h, SessionID(2), unit: unit) == nil)
    h.send(SessionID(9), .changeApp(Self.app, uid: 1000, .grant(.always, .full)))
    #expect(h.engine.appAuthorization.record(Self.key)?.decidedFor == .systemd)
    #expect(Self.hello(&h, SessionID(3), unit: .none)?.code == .identityMismatch)
  }
}
