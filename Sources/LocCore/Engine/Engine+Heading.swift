/// The compass (decision 0054): `start-heading` and `stop-heading` go to `HeadingMachine`,
/// which the engine tells after every event which of the sessions wanting heading may have
/// it (a plain session: always, its access admitted the request; an app session: while its
/// app is authorized and in use, by the apps rules); its readings go to those sessions past
/// their filter, and its claim to the shell (`Effect.compass`).
extension Engine {
  mutating func handleHeadingRequest(
    _ request: Request, ref: RequestRef, at now: Instant, into effects: inout [Effect]
  ) {
    switch request {
    case .startHeading(let filter):
      carryOutHeading(heading.handle(.start(ref.session, filter: filter), at: now), at: now, into: &effects)
      effects.append(.reply(ref.session, ref.id, .success(.done)))
    case .stopHeading:
      let wanted = heading.sessions.contains(ref.session)
      carryOutHeading(heading.handle(.stop(ref.session), at: now), at: now, into: &effects)
      guard wanted else {
        let error = RequestError(.notFound, "this session has not started heading updates")
        return effects.append(.reply(ref.session, ref.id, .failure(error)))
      }
      effects.append(.reply(ref.session, ref.id, .success(.done)))
    default:
      break
    }
  }

  /// A session went away: its heading updates end.
  mutating func headingClosed(_ id: SessionID, at now: Instant, into effects: inout [Effect]) {
    guard heading.sessions.contains(id) else { return }
    carryOutHeading(heading.handle(.stop(id), at: now), at: now, into: &effects)
  }

  /// A compass reading: who may have heading is worked out first (a grace window may have
  /// ended since the last event), then the reading goes to them.
  mutating func headingMeasured(
    _ degrees: Double, from source: SourceID, at now: Instant, into effects: inout [Effect]
  ) {
    syncHeading(at: now, into: &effects)
    let reading = HeadingReading(magneticHeading: degrees, time: now, source: positions.uri(of: source))
    carryOutHeading(heading.handle(.measured(reading), at: now), at: now, into: &effects)
  }

  /// Tells the heading machine which of its sessions may have heading now; nothing to do
  /// while nobody wants heading.
  mutating func syncHeading(at now: Instant, into effects: inout [Effect]) {
    guard !heading.isEmpty else { return }
    let eligible = Set(heading.sessions.filter { mayHaveHeading($0, at: now) })
    carryOutHeading(heading.handle(.eligible(eligible), at: now), at: now, into: &effects)
  }

  /// Whether session `id` may have the heading now: a plain one whenever its access admitted
  /// `start-heading`, an app's while its app is authorized (when in use or always) and in use.
  func mayHaveHeading(_ id: SessionID, at now: Instant) -> Bool {
    guard sessions.isApp(id) else { return true }
    guard let key = appDelivery.key(of: id) else { return false }
    return appAuthorization.authorization(key).allowsInUse && appDelivery.inUse(id, at: now)
  }

  private func carryOutHeading(
    _ outputs: [HeadingMachine.Output], at now: Instant, into effects: inout [Effect]
  ) {
    for output in outputs {
      switch output {
      case .heading(let id, let reading):
        effects.append(.push([id], .heading(reading), at: now))
      case .claim(let claimed):
        // Info where a compass source is configured; without one (GeoClue clients ask for
        // heading whatever the sources), a claim asks nothing of anyone: debug.
        let compass = SourceURI.compass.description
        let level: LogLevel = positions.sortedSources.contains { $0.uri == compass } ? .info : .debug
        let n = heading.report.eligible
        effects.append(
          .log(
            level,
            claimed
              ? "heading wanted by \(n) session(s): the compass is claimed"
              : "heading no longer wanted: the compass is released"))
        effects.append(.compass(claimed: claimed))
      }
    }
  }
}
