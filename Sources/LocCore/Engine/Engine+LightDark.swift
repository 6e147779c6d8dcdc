/// Light and dark by the Sun (decision 0065, docs/LIGHTDARK.md): `light-dark` and `set-mode`
/// go to `LightDarkMachine`, which every regeneration tells the position and the zone in
/// effect (it keeps only the 25 km cell of the position); its pushes become `light-dark`
/// events to the followers of a schedule, and its deadline the `.lightDark` timer.
extension Engine {
  /// `light-dark` and `set-mode` (any plain session: the schedule is the caller's own, worked
  /// out for a place no finer than a city).
  mutating func handleLightDarkRequest(
    _ request: Request, ref: RequestRef, peer: Peer, at now: Instant, into effects: inout [Effect]
  ) {
    let outcome: Result<(LightDarkSchedule, [LightDarkMachine.Push]), RequestError>
    switch request {
    case .lightDark(let rules, let follow):
      outcome = lightDark.ask(ref.session, uid: peer.uid, rules: rules, follow: follow, at: now)
    case .setMode(let change):
      outcome = lightDark.set(change, from: ref.session, uid: peer.uid, at: now)
      if case .success(let (schedule, _)) = outcome {
        let mode = schedule.mode?.rawValue ?? "unknown"
        effects.append(
          .log(.info, "uid \(peer.uid) set the light/dark mode: \(change.rawValue) (now \(mode))"))
      }
    default:
      return
    }
    switch outcome {
    case .success(let (schedule, pushes)):
      effects.append(.reply(ref.session, ref.id, .success(.lightDark(schedule))))
      push(pushes, at: now, into: &effects)
    case .failure(let error):
      effects.append(.reply(ref.session, ref.id, .failure(error)))
    }
  }

  /// A regeneration (`regenerate`): the schedules follow the position and the zone. The
  /// machine takes them also while nobody has a schedule, so the first to ask has one.
  mutating func regenerateLightDark(
    _ reason: RegenerationReason, position: Coordinate?, zone: ZoneRules, at now: Instant,
    into effects: inout [Effect]
  ) {
    push(lightDark.regenerate(position, zone: zone, reason: reason, at: now), at: now, into: &effects)
  }

  /// The `.lightDark` timer fired: the transitions that came are told.
  mutating func lightDarkDue(at now: Instant, into effects: inout [Effect]) {
    push(lightDark.due(at: now), at: now, into: &effects)
  }

  private func push(_ pushes: [LightDarkMachine.Push], at now: Instant, into effects: inout [Effect]) {
    for p in pushes {
      effects.append(.push(p.sessions, .lightDark(p.schedule, reason: p.reason), at: now))
    }
  }
}
