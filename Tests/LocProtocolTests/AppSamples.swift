import LocProtocol

@testable import LocCore

/// Samples of the apps messages (docs/PROTOCOL.md, "Apps"), with every optional member both
/// present and absent somewhere.
enum AppSamples {
  static let t = WireSamples.t
  static let weather = AppKey(uid: 1000, app: AppID("org.example.Weather")!)
  static let flatpak = AppIdentity(
    key: weather, verification: .flatpak, unit: "app-flatpak-org.example.Weather-4242.scope")
  static let claimed = AppIdentity(
    key: AppKey(uid: 1001, app: AppID("firefox-esr")!), verification: .claimed, unit: nil)

  static let status = AppStatusReport(
    identity: flatpak, authorization: AppAuthorization(.always, accuracy: .reduced, provisional: true),
    prompt: .asking, inUse: true, decidedBy: "agent")
  static let undecided = AppStatusReport(
    identity: claimed, authorization: .notDetermined, prompt: .noAgent, inUse: false, decidedBy: nil)

  static let prompt = AppPrompt(
    id: PromptID(17), kind: .authorization, identity: flatpak, requested: .always,
    purpose: "rain \"alerts\" ☔",
    maxAccuracy: .reduced, askedAt: t, deadline: Instant(iso8601: "2026-06-21T19:58:21Z")!)
  static let upgrade = AppPrompt(
    id: PromptID(18), kind: .upgrade, identity: claimed, requested: .always, purpose: nil, maxAccuracy: .full,
    askedAt: nil, deadline: nil)

  static let listing = AppListing(
    key: weather, authorization: AppAuthorization(.whenInUse, accuracy: .full, once: true), decidedBy: "user",
    policyFile: "/etc/locd/apps.d/weather.conf", sessions: 2, inUse: true, using: true,
    lastUsed: Instant(iso8601: "2026-06-21T19:57:21Z")!, verification: .systemd,
    unit: "app-gnome-org.example.Weather@1.service",
    purpose: "forecasts", registrations: [.significantChange])
  static let unseen = AppListing(
    key: claimed.key, authorization: AppAuthorization(.denied), decidedBy: nil, policyFile: nil, sessions: 0,
    inUse: false, using: false, lastUsed: nil, verification: nil, unit: nil, purpose: nil, registrations: [])

  static let report = AppsReport(
    using: [AppUse(key: weather, verification: .flatpak, accuracy: .reduced, background: true)], connected: 3,
    known: 5, agents: [1000, 1001], pendingPrompts: 1, counters: [Counter("staleDropped", 2)],
    problems: ["/etc/locd/apps.d/x.conf:2: unknown key 'Foo' in [App]"])

  /// Every apps request.
  static let requests: [WireRequest] = [
    .hello(protocolMajor: 1, app: "org.example.Weather", client: "LocationManager"),
    .request(.requestAuthorization(.whenInUse, purpose: "to show the weather where you are")),
    .request(.requestAuthorization(.always, purpose: "rain \"alerts\" ☔")),
    .request(.requestTemporaryFullAccuracy(purpose: "turn-by-turn directions")),
    .request(.setActivity(.foreground)), .request(.setActivity(.background)),
    .request(.startUpdates(AppSession.Updates())),
    .request(.startUpdates(AppSession.Updates(distanceFilter: 0, desiredAccuracy: 100, background: true))),
    .request(.stopUpdates), .request(.registerAgent),
    .request(.answerPrompt(PromptID(17), .allowWhileUsing, precise: false)),
    .request(.answerPrompt(PromptID(18), .keepWhileUsing, precise: true)),
    .request(.listApps(uid: nil)), .request(.listApps(uid: 0)),
    .request(.changeApp(weather.app, uid: 1000, .grant(.always, .reduced))),
    .request(.changeApp(weather.app, uid: nil, .grant(.whenInUse, .full))),
    .request(.changeApp(weather.app, uid: nil, .deny)),
    .request(.changeApp(weather.app, uid: 4_294_967_294, .reset)),
  ]

  /// Every apps response.
  static let responses: [Response] = [
    .hello(HelloAnswer(session: SessionID(7), access: .none, app: status, unit: flatpak.unit)),
    .hello(HelloAnswer(session: SessionID(8), access: .read, app: nil, unit: nil)),
    .hello(
      HelloAnswer(
        session: SessionID(9), access: .read, app: nil, unit: nil,
        now: Instant(microsecondsSinceEpoch: 1_782_072_000_123_456))),
    .appStatus(status), .appStatus(undecided), .agent(uid: 1000, pending: 2), .apps([listing, unseen]),
    .apps([]),
    .app(listing),
  ]

  /// Every apps event.
  static let notices: [Notice] = [
    .authorization(status), .authorization(undecided), .agentPrompt(prompt), .agentPrompt(upgrade),
    .agentPromptWithdrawn(PromptID(17), reason: "the app went away"),
  ]
}
