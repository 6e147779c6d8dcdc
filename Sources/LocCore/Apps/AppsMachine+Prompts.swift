/// Agents and prompts: one agent per user answers for that user's apps, one prompt at a
/// time, each within `promptTimeout`; an app whose prompt went unanswered is not asked again
/// before `promptInterval`.
extension AppsMachine {
  /// Queues a prompt for `key` unless one is queued already or the app was asked too
  /// recently; puts it to the agent if it is first. Returns where the request stands.
  @discardableResult
  mutating func prompt(
    _ kind: AppPrompt.Kind, for key: AppKey, requested: AuthorizationLevel, at now: Instant,
    into outputs: inout [AppsOutput]
  ) -> PromptState {
    if prompts[key.uid]?.contains(where: { $0.identity.key == key }) == true {
      return promptStates[key] ?? .asking
    }
    if let last = unanswered[key], now < last.adding(settings.promptInterval) {
      promptStates[key] = .noAnswer
      return .noAnswer
    }
    guard let identity = sessions(of: key).first.flatMap({ sessions[$0]?.identity }) else { return .none }
    let p = AppPrompt(
      id: PromptID(nextPrompt), kind: kind, identity: identity, requested: requested,
      purpose: records[key]?.purpose,
      maxAccuracy: policy.rule(for: key)?.rule.maxAccuracy ?? .full, askedAt: nil, deadline: nil)
    nextPrompt += 1
    prompts[key.uid, default: []].append(p)
    promptStates[key] = agents[key.uid] == nil ? .noAgent : .asking
    askFirst(key.uid, at: now, into: &outputs)
    return promptStates[key] ?? .none
  }

  /// Asks the person to upgrade a provisional always, if that was not asked yet.
  mutating func askUpgrade(_ key: AppKey, at now: Instant, into outputs: inout [AppsOutput]) {
    guard let r = records[key], r.provisional, !r.upgradeAsked else { return }
    prompt(.upgrade, for: key, requested: .always, at: now, into: &outputs)
    tell(key, at: now, into: &outputs)
  }

  /// Puts the user's first prompt to their agent, if there is one and it was not asked yet.
  mutating func askFirst(_ uid: UInt32, at now: Instant, into outputs: inout [AppsOutput]) {
    guard let agent = agents[uid], var first = prompts[uid]?.first, first.askedAt == nil else { return }
    first.askedAt = now
    first.deadline = now.adding(settings.promptTimeout)
    prompts[uid]![0] = first
    outputs.append(.ask(agent, first))
  }

  /// `agent` registers for `uid`; the prompts waiting are put to it. Returns how many wait.
  mutating func register(_ agent: AgentID, uid: UInt32, at now: Instant, into outputs: inout [AppsOutput])
    -> Result<Int, RequestError>
  {
    if let other = agents[uid], other != agent {
      return .failure(RequestError(.alreadyExists, "uid \(uid) has an agent already; stop it first"))
    }
    agents[uid] = agent
    for p in prompts[uid] ?? [] { promptStates[p.identity.key] = .asking }
    askFirst(uid, at: now, into: &outputs)
    for key in Set((prompts[uid] ?? []).map(\.identity.key)) { tell(key, at: now, into: &outputs) }
    return .success(prompts[uid]?.count ?? 0)
  }

  /// The agent of a user went away: its prompts wait for the next one.
  mutating func agentGone(_ agent: AgentID, at now: Instant, into outputs: inout [AppsOutput]) {
    guard let uid = agents.first(where: { $0.value == agent })?.key else { return }
    agents[uid] = nil
    guard var queue = prompts[uid] else { return }
    for i in queue.indices {
      queue[i].askedAt = nil
      queue[i].deadline = nil
      promptStates[queue[i].identity.key] = .noAgent
    }
    prompts[uid] = queue
    for key in Set(queue.map(\.identity.key)) { tell(key, at: now, into: &outputs) }
  }

  /// An agent answers prompt `id`.
  mutating func answer(
    _ id: PromptID, _ answer: AgentAnswer, precise: Bool, from agent: AgentID, at now: Instant,
    into outputs: inout [AppsOutput]
  ) -> Result<Void, RequestError> {
    guard let uid = agents.first(where: { $0.value == agent })?.key, let p = prompts[uid]?.first, p.id == id,
      p.askedAt != nil
    else {
      return .failure(
        RequestError(.notFound, "\(id) is not waiting for this agent's answer (timed out or withdrawn?)"))
    }
    guard answer.answers(p.kind) else {
      let valid = AgentAnswer.allCases.filter { $0.answers(p.kind) }.map(\.rawValue).joined(separator: ", ")
      return .failure(RequestError(.invalidParams, "a \(p.kind.rawValue) prompt is answered with \(valid)"))
    }
    prompts[uid]!.removeFirst()
    if prompts[uid]!.isEmpty { prompts[uid] = nil }
    let key = p.identity.key
    unanswered[key] = nil
    promptStates[key] = PromptState.none
    apply(answer, to: p, precise: precise, at: now)
    outputs.append(.decided(key, authorization(key), by: "agent"))
    reindex(key: key, at: now, into: &outputs)
    askFirst(uid, at: now, into: &outputs)
    return .success(())
  }

  /// Records the person's answer.
  private mutating func apply(_ answer: AgentAnswer, to p: AppPrompt, precise: Bool, at now: Instant) {
    let key = p.identity.key
    guard var r = records[key] else { return }
    let accuracy = min(precise ? AccuracyAuthorization.full : .reduced, p.maxAccuracy)
    switch answer {
    case .allowOnce:
      (r.status, r.once, r.provisional, r.accuracy) = (.whenInUse, true, false, accuracy)
    case .allowWhileUsing:
      let always = p.requested == .always
      (r.status, r.once, r.provisional, r.accuracy) = (always ? .always : .whenInUse, false, always, accuracy)
    case .deny:
      (r.status, r.once, r.provisional) = (.denied, false, false)
    case .always:
      (r.status, r.provisional, r.upgradeAsked) = (.always, false, true)
    case .keepWhileUsing:
      (r.status, r.provisional, r.upgradeAsked) = (.whenInUse, false, true)
    }
    r.decidedBy = .agent
    r.decidedAt = now
    r.decidedFor = AppsMachine.binding(p.identity)
    records[key] = r
    storeChanged = true
  }

  /// Prompts whose time is up are withdrawn; the next is asked.
  mutating func expirePrompts(at now: Instant, into outputs: inout [AppsOutput]) {
    for (uid, queue) in prompts {
      guard let first = queue.first, let deadline = first.deadline, deadline <= now else { continue }
      counters.promptsTimedOut += 1
      remove(
        first, reason: "not answered in \(TimeFormat.duration(settings.promptTimeout))", at: now,
        into: &outputs)
      // Kept past the app's record (it may reconnect to be asked again); bounded by pruning
      // what PromptInterval= no longer holds back: a user has one prompt at a time.
      unanswered = unanswered.filter { now < $0.value.adding(settings.promptInterval) }
      unanswered[first.identity.key] = now
      promptStates[first.identity.key] = .noAnswer
      tell(first.identity.key, at: now, into: &outputs)
      askFirst(uid, at: now, into: &outputs)
    }
  }

  /// Withdraws `key`'s prompts (the app went away).
  mutating func withdrawPrompts(for key: AppKey, at now: Instant, into outputs: inout [AppsOutput]) {
    for p in prompts[key.uid] ?? [] where p.identity.key == key {
      remove(p, reason: "the app went away", at: now, into: &outputs)
    }
    promptStates[key] = nil
    askFirst(key.uid, at: now, into: &outputs)
  }

  /// Takes a prompt out of its queue, telling the agent if it had been asked.
  private mutating func remove(
    _ p: AppPrompt, reason: String, at now: Instant, into outputs: inout [AppsOutput]
  ) {
    let uid = p.identity.key.uid
    prompts[uid]?.removeAll { $0.id == p.id }
    if prompts[uid]?.isEmpty == true { prompts[uid] = nil }
    if p.askedAt != nil, let agent = agents[uid] { outputs.append(.withdraw(agent, p.id, reason: reason)) }
  }
}
