/// Acquisition in the engine: its transitions announced, `locate` requests answered, and
/// after every event the shell's timers and receivers kept in step with its state.
extension Engine {
  /// Logs and publishes acquisition transitions, with the state after them. (Mutating for
  /// the reason `publish` is.)
  mutating func announce(_ transitions: [Acquisition.Transition], into effects: inout [Effect]) {
    guard !transitions.isEmpty else { return }
    let report = acquisition.report
    for t in transitions {
      // Every 15 minutes a refresh starts and ends: the routine part goes to debug.
      effects.append(.log(t.isRoutine ? .debug : .info, "acquisition: \(t.from) -> \(t.to) (\(t.reason))"))
      publish(.acquisition(AcquisitionChange(transition: t, report: report)), at: t.at, into: &effects)
    }
  }

  /// After every event: continuous subscribers counted, due `locate` requests answered,
  /// timers armed for the state as it is, the shell told when receivers change.
  mutating func syncAcquisition(at now: Instant, into effects: inout [Effect]) {
    // Apps count while they may receive positions: a denied or background app holds nothing.
    let appHolders = appDelivery.locationHolders()
    let transitions = acquisition.holders(sessions.recipients(of: .location).count + appHolders, at: now)
    announce(transitions, into: &effects)
    answerLocates(at: now, into: &effects)
    arm(.acquisitionTimeout, at: acquisition.attemptDeadline, into: &effects)
    arm(.acquisitionRefresh, at: acquisition.refreshDue, into: &effects)
    arm(.locateDeadline, at: acquisition.locateDeadline, into: &effects)
    if let active = acquisition.receiversChange() { effects.append(.receivers(active: active)) }
  }

  /// Answers the `locate` requests a fresh fix satisfies and those whose time is up.
  mutating func answerLocates(at now: Instant, into effects: inout [Effect]) {
    guard acquisition.hasWaitingLocates else { return }
    let (answers, transitions) = acquisition.answerDue(resolve(at: now), at: now)
    for (ref, answer) in answers {
      effects.append(.reply(ref.session, ref.id, located(answer, for: ref, at: now)))
    }
    announce(transitions, into: &effects)
  }

  /// A `locate` answer as the session gets it: an app's through the gate at the moment of
  /// answering (it may have left the foreground while waiting), snapped if reduced.
  func located(_ answer: LocateAnswer, for ref: RequestRef, at now: Instant) -> Result<Response, RequestError>
  {
    guard let verdict = appVerdict(ref.session, .location, at: now) else { return .success(.located(answer)) }
    switch verdict {
    case .deliver(.full): return .success(.located(answer))
    case .deliver(.reduced):
      var reduced = answer
      reduced.position.position = answer.position.position.map { appDelivery.snapped($0) }
      return .success(.located(reduced))
    case .hold, .refuse:
      let key = appDelivery.key(of: ref.session)!
      return .failure(AppAuthorizationMachine.refusal(key, appAuthorization.authorization(key), inUse: false))
    }
  }

  /// `locate`: answered at once, refused, or kept until a fix or its timeout.
  mutating func locate(
    _ ref: RequestRef, timeout: Duration?, accuracy: Meters?, at now: Instant, into effects: inout [Effect]
  ) {
    let (decision, transitions) = acquisition.locate(
      ref, timeout: timeout ?? config.acquisition.timeout, accuracy: accuracy ?? config.acquisition.accuracy,
      resolved: resolve(at: now), sources: positions.undeliverable, at: now)
    switch decision {
    case .answer(let answer): effects.append(.reply(ref.session, ref.id, located(answer, for: ref, at: now)))
    case .refuse(let error): effects.append(.reply(ref.session, ref.id, .failure(error)))
    case .wait: break
    }
    announce(transitions, into: &effects)
  }
}
