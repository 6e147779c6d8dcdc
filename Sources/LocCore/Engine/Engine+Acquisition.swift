/// Acquisition in the engine: carrying out the state machine's outputs, the continuous
/// subscribers that hold it open, one-shot `locate` requests answered later, and the
/// shell's receivers kept in step.
extension Engine {
  /// One `locate` request waiting for a fix.
  struct PendingLocate {
    var ref: RequestRef
    var accuracy: Meters
    var timeout: Duration
    var since: Instant
    var deadline: Instant
    var token: Int
  }

  /// Most `locate` requests one session may have waiting: a client that wants a stream
  /// subscribes instead, and each waiting request holds memory until its timeout.
  static let maxLocatesPerSession = 16

  /// Logs and publishes the transitions among `outputs`. Timers and the receivers follow
  /// the state itself (`syncAcquisition`), so a lost output cannot leave them wrong.
  mutating func applyAcquisition(
    _ outputs: [Acquisition.Output], at now: Instant, into effects: inout [Effect]
  ) {
    for output in outputs {
      guard case .transition(let from, let to, let reason) = output else { continue }
      // Every 15 minutes a refresh starts and ends: the routine part goes to debug.
      let routine = (from == "settled" && to == "idle") || (from == "idle" && reason == "refresh")
      effects.append(.log(routine ? .debug : .info, "acquisition: \(from) -> \(to) (\(reason))"))
      let change = AcquisitionChange(
        transition: Acquisition.Transition(from: from, to: to, reason: reason, at: now),
        report: acquisition.report(pendingLocates: pendingLocates.count))
      publish(.acquisition(change), at: now, into: &effects)
    }
  }

  /// After every event: continuous subscribers counted, due `locate` requests answered,
  /// timers armed for the state as it is, the shell told when receivers change.
  mutating func syncAcquisition(at now: Instant, into effects: inout [Effect]) {
    let holders = subscribers[.location]?.count ?? 0
    if holders != acquisition.holders {
      applyAcquisition(acquisition.holder(holders - acquisition.holders, at: now), at: now, into: &effects)
    }
    answerLocates(at: now, into: &effects)
    setArm(.acquisitionTimeout, at: acquisition.deadline, into: &effects)
    setArm(.acquisitionRefresh, at: acquisition.isAcquiring ? nil : acquisition.nextRefresh, into: &effects)
    setArm(.locateDeadline, at: pendingLocates.map(\.deadline).min(), into: &effects)
    let active = acquisition.isAcquiring
    if receiversActive != active {
      receiversActive = active
      effects.append(.receivers(active: active))
    }
  }

  /// `locate`: answered at once when a fresh fix is good enough (or nothing can come),
  /// otherwise kept until one comes or the timeout passes.
  mutating func handleLocate(
    _ ref: RequestRef, timeout: Duration, accuracy: Meters, at now: Instant, into effects: inout [Effect]
  ) {
    let resolved = resolve(at: now)
    if LocateAnswer.satisfies(resolved, accuracy) || timeout <= .zero || !canDeliverFixes {
      let note =
        timeout <= .zero
        ? "answered at once (timeout 0)"
        : canDeliverFixes ? nil : "no source can deliver fixes (\(sourceSummary))"
      effects.append(
        .reply(
          ref.session, ref.id,
          .success(.located(LocateAnswer(position: resolved, wanted: accuracy, waited: .zero, note: note)))))
      return
    }
    guard pendingLocates.filter({ $0.ref.session == ref.session }).count < Engine.maxLocatesPerSession else {
      effects.append(
        .reply(
          ref.session, ref.id,
          .failure(
            RequestError(
              .failed,
              "\(Engine.maxLocatesPerSession) locate requests already wait on this connection; subscribe to 'location' for a stream"
            ))))
      return
    }
    let token = nextLocateToken
    nextLocateToken += 1
    let deadline = now.adding(timeout)
    pendingLocates.append(
      PendingLocate(
        ref: ref, accuracy: accuracy, timeout: timeout, since: now, deadline: deadline, token: token))
    applyAcquisition(acquisition.oneShot(token, until: deadline, at: now), at: now, into: &effects)
  }

  /// Answers the `locate` requests a fresh fix satisfies and those whose time is up.
  mutating func answerLocates(at now: Instant, into effects: inout [Effect]) {
    guard !pendingLocates.isEmpty else { return }
    let resolved = resolve(at: now)
    var waiting: [PendingLocate] = []
    var answered: [(PendingLocate, LocateAnswer)] = []
    for p in pendingLocates {
      if LocateAnswer.satisfies(resolved, p.accuracy) {
        answered.append(
          (
            p,
            LocateAnswer(
              position: resolved, wanted: p.accuracy, waited: now.duration(since: p.since), note: nil)
          ))
      } else if now >= p.deadline {
        let note =
          "no fresh fix within \(TimeFormat.distance(p.accuracy)) came in \(TimeFormat.duration(p.timeout))"
        answered.append(
          (
            p,
            LocateAnswer(
              position: resolved, wanted: p.accuracy, waited: now.duration(since: p.since), note: note)
          ))
      } else {
        waiting.append(p)
      }
    }
    guard !answered.isEmpty else { return }
    pendingLocates = waiting
    for (p, answer) in answered {
      effects.append(.reply(p.ref.session, p.ref.id, .success(.located(answer))))
      applyAcquisition(acquisition.release(p.token, at: now), at: now, into: &effects)
    }
  }

  /// A session went away: its waiting `locate` requests go with it.
  mutating func dropLocates(of session: SessionID, at now: Instant, into effects: inout [Effect]) {
    let gone = pendingLocates.filter { $0.ref.session == session }
    guard !gone.isEmpty else { return }
    pendingLocates.removeAll { $0.ref.session == session }
    for p in gone { applyAcquisition(acquisition.release(p.token, at: now), at: now, into: &effects) }
  }

  /// After a clock step: the attempt and every waiting `locate` get their time again from now.
  mutating func rebaseAcquisition(at now: Instant, into effects: inout [Effect]) {
    applyAcquisition(acquisition.clockStepped(at: now), at: now, into: &effects)
    for i in pendingLocates.indices {
      pendingLocates[i].deadline = now.adding(pendingLocates[i].timeout)
      pendingLocates[i].since = min(pendingLocates[i].since, now)
      let p = pendingLocates[i]
      applyAcquisition(acquisition.oneShot(p.token, until: p.deadline, at: now), at: now, into: &effects)
    }
  }

  /// Whether some source may still deliver a fix (not all of them failed or finished).
  var canDeliverFixes: Bool {
    sources.isEmpty || sources.values.contains { $0.state != .failed && $0.state != .finished }
  }

  /// "replay:x: finished; gpsd://...: failed (...)" for a `locate` answered at once.
  private var sourceSummary: String {
    sources.values.sorted(by: { $0.id < $1.id }).map { s in
      "\(s.uri): \(s.state.name)" + (s.lastError.map { " (\($0))" } ?? "")
    }.joined(separator: "; ")
  }
}
