/// Skies on demand (decision 0069): a `sky` request, `sky` subscriptions and the skies that
/// come go to `SkyDemandMachine`, which says whether the engine wants skies assembled
/// (`Effect.skies(wanted:)`) and which waiting requests to answer.
extension Engine {
  /// A `sky` request: skies are wanted for `SkyDemandMachine.askedFor` from now. While
  /// nobody read them, the connected receivers without a current sky are waited for (their
  /// first sky, at most `gatherBound`); otherwise it is answered at once.
  mutating func askSky(_ ref: RequestRef, at now: Instant, into effects: inout [Effect]) {
    let wasWanted = skyDemand.isWanted
    skyDemand.asked(at: now)
    let since = now.adding(.zero - SkyDemandMachine.fresh)
    let awaiting = wasWanted ? [] : positions.receivers(withoutSkySince: since)
    if !skyDemand.hold(ref, awaiting: awaiting, at: now) {
      effects.append(.reply(ref.session, ref.id, .success(.skies(positions.skies))))
    }
    settleSkyDemand(at: now, into: &effects)
  }

  /// A sky came from `source`: requests that waited for it are answered.
  mutating func skyCame(from source: SourceID, into effects: inout [Effect]) {
    let done = skyDemand.skyCame(from: source)
    guard !done.isEmpty else { return }
    let skies = positions.skies
    for ref in done { effects.append(.reply(ref.session, ref.id, .success(.skies(skies)))) }
  }

  /// The `.skies` timer: waits that ended are answered with what there is, and the
  /// request's window may have closed.
  mutating func skiesDue(at now: Instant, into effects: inout [Effect]) {
    let done = skyDemand.due(at: now)
    if !done.isEmpty {
      let skies = positions.skies
      for ref in done { effects.append(.reply(ref.session, ref.id, .success(.skies(skies)))) }
    }
    settleSkyDemand(at: now, into: &effects)
  }

  /// Tells the shell when the engine's wish for skies changed, and arms the `.skies` timer
  /// for the next wait's end or the window's.
  mutating func settleSkyDemand(at now: Instant, into effects: inout [Effect]) {
    let subscribers = sessions.recipients(of: .sky).count
    if let wanted = skyDemand.settle(subscribers: subscribers, at: now) {
      effects.append(.skies(wanted: wanted))
    }
    arm(.skies, at: skyDemand.deadline(at: now), into: &effects)
  }
}
