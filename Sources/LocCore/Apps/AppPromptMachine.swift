/// Agents and prompts: one agent per user answers for that user's apps, one prompt at a
/// time, each within `promptTimeout`; an app whose prompt went unanswered is not asked again
/// before `promptInterval`. Where each app's request stands (`state`) is kept here.
///
/// Its state is private; what it asks of agents comes out as `AppsOutput.ask`/`.withdraw`,
/// and the apps whose request changed state are returned for the engine to tell.
struct AppPromptMachine: EngineMachine {
  /// The `[Apps]` settings (`PromptTimeout=`, `PromptInterval=`).
  private var settings: AppsSettings
  /// The agent of each user.
  private var agents: [UInt32: AgentID] = [:]
  /// Prompts per user, oldest first; the first is the one put to the agent.
  private var prompts: [UInt32: [AppPrompt]] = [:]
  /// Where each app's request stands.
  private var states: [AppKey: PromptState] = [:]
  /// When an app's last prompt went unanswered (for `promptInterval`).
  private var unanswered: [AppKey: Instant] = [:]
  /// The number of the next prompt.
  private var nextPrompt: UInt64 = 1
  /// Prompts an agent did not answer in time.
  private var promptsTimedOut = 0

  /// A machine with `settings`, no agents.
  init(settings: AppsSettings) { self.settings = settings }

  // MARK: Queries

  /// Where `key`'s request stands.
  func state(_ key: AppKey) -> PromptState { states[key] ?? .none }

  /// Users with an agent registered, in order.
  func agentUsers() -> [UInt32] { agents.keys.sorted() }

  /// Prompts waiting for an answer (or an agent).
  func pendingCount() -> Int { prompts.values.reduce(0) { $0 + $1.count } }

  /// When the first prompt put to an agent times out, the earliest of them.
  func nextDeadline() -> Instant? {
    var earliest: Instant? = nil
    for queue in prompts.values {
      if let d = queue.first?.deadline { earliest = min(earliest ?? d, d) }
    }
    return earliest
  }

  /// The counters, as status names them.
  func counterList() -> [Counter] { [Counter("promptsTimedOut", promptsTimedOut)] }

  // MARK: Changes

  /// The `[Apps]` settings changed (start, reload).
  mutating func configure(_ settings: AppsSettings) { self.settings = settings }

  /// Queues a prompt for `key` (seen as `identity`, nil when no session of it is connected)
  /// unless one is queued already or the app was asked too recently; puts it to the agent
  /// if it is first. Returns where the request stands.
  @discardableResult
  mutating func prompt(
    _ kind: AppPrompt.Kind, for key: AppKey, as identity: AppIdentity?, requested: AuthorizationLevel,
    purpose: String?, maxAccuracy: AccuracyAuthorization, at now: Instant, into outputs: inout [AppsOutput]
  ) -> PromptState {
    if prompts[key.uid]?.contains(where: { $0.identity.key == key }) == true {
      return states[key] ?? .asking
    }
    if let last = unanswered[key], now < last.adding(settings.promptInterval) {
      states[key] = .noAnswer
      return .noAnswer
    }
    guard let identity else { return .none }
    let p = AppPrompt(
      id: PromptID(nextPrompt), kind: kind, identity: identity, requested: requested, purpose: purpose,
      maxAccuracy: maxAccuracy, askedAt: nil, deadline: nil)
    nextPrompt += 1
    prompts[key.uid, default: []].append(p)
    states[key] = agents[key.uid] == nil ? .noAgent : .asking
    askFirst(key.uid, at: now, into: &outputs)
    return states[key] ?? .none
  }

  /// Puts the user's first prompt to their agent, if there is one and it was not asked yet.
  mutating func askFirst(_ uid: UInt32, at now: Instant, into outputs: inout [AppsOutput]) {
    guard let agent = agents[uid], var first = prompts[uid]?.first, first.askedAt == nil else { return }
    first.askedAt = now
    first.deadline = now.adding(settings.promptTimeout)
    prompts[uid]![0] = first
    outputs.append(.ask(agent, first))
  }

  /// `agent` registers for `uid`; the prompts waiting are put to it. Returns how many wait
  /// and the apps whose request changed state.
  mutating func register(_ agent: AgentID, uid: UInt32, at now: Instant, into outputs: inout [AppsOutput])
    -> Result<(pending: Int, changed: Set<AppKey>), RequestError>
  {
    if let other = agents[uid], other != agent {
      return .failure(RequestError(.alreadyExists, "uid \(uid) has an agent already; stop it first"))
    }
    agents[uid] = agent
    for p in prompts[uid] ?? [] { states[p.identity.key] = .asking }
    askFirst(uid, at: now, into: &outputs)
    let changed = Set((prompts[uid] ?? []).map(\.identity.key))
    return .success((prompts[uid]?.count ?? 0, changed))
  }

  /// The agent of a user went away: its prompts wait for the next one. Returns the apps
  /// whose request changed state.
  mutating func agentGone(_ agent: AgentID) -> Set<AppKey> {
    guard let uid = agents.first(where: { $0.value == agent })?.key else { return [] }
    agents[uid] = nil
    guard var queue = prompts[uid] else { return [] }
    for i in queue.indices {
      queue[i].askedAt = nil
      queue[i].deadline = nil
      states[queue[i].identity.key] = .noAgent
    }
    prompts[uid] = queue
    return Set(queue.map(\.identity.key))
  }

  /// An agent answers prompt `id`: the prompt, taken out of its queue, if it was the one put
  /// to this agent and `answer` answers its kind. The engine records the answer and then
  /// asks the next (`askFirst`).
  mutating func take(_ id: PromptID, _ answer: AgentAnswer, from agent: AgentID) -> Result<
    AppPrompt, RequestError
  > {
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
    states[key] = PromptState.none
    return .success(p)
  }

  /// The users whose first prompt's time is up at `now`.
  func usersTimedOut(at now: Instant) -> [UInt32] {
    prompts.compactMap { uid, queue in
      guard let deadline = queue.first?.deadline, deadline <= now else { return nil }
      return uid
    }
  }

  /// Withdraws `uid`'s first prompt, whose time is up; returns its app (not asked again
  /// before `PromptInterval=`). The engine tells the app and then asks the next.
  mutating func expireFirst(of uid: UInt32, at now: Instant, into outputs: inout [AppsOutput]) -> AppKey? {
    guard let first = prompts[uid]?.first, let deadline = first.deadline, deadline <= now else { return nil }
    promptsTimedOut += 1
    remove(first, reason: "not answered in \(TimeFormat.duration(settings.promptTimeout))", into: &outputs)
    // Kept past the app's record (it may reconnect to be asked again); bounded by pruning
    // what PromptInterval= no longer holds back: a user has one prompt at a time.
    unanswered = unanswered.filter { now < $0.value.adding(settings.promptInterval) }
    unanswered[first.identity.key] = now
    states[first.identity.key] = .noAnswer
    return first.identity.key
  }

  /// Withdraws `key`'s prompts (the app went away).
  mutating func withdraw(for key: AppKey, at now: Instant, into outputs: inout [AppsOutput]) {
    for p in prompts[key.uid] ?? [] where p.identity.key == key {
      remove(p, reason: "the app went away", into: &outputs)
    }
    states[key] = nil
    askFirst(key.uid, at: now, into: &outputs)
  }

  /// `key`'s record was forgotten: where its request stood goes too. (When its last prompt
  /// went unanswered stays: an app that reconnects is not asked again before PromptInterval=.)
  mutating func forget(_ key: AppKey) { states[key] = nil }

  /// `key` was reset: it may be asked again at once.
  mutating func forgetUnanswered(_ key: AppKey) { unanswered[key] = nil }

  /// Takes a prompt out of its queue, telling the agent if it had been asked.
  private mutating func remove(_ p: AppPrompt, reason: String, into outputs: inout [AppsOutput]) {
    let uid = p.identity.key.uid
    prompts[uid]?.removeAll { $0.id == p.id }
    if prompts[uid]?.isEmpty == true { prompts[uid] = nil }
    if p.askedAt != nil, let agent = agents[uid] { outputs.append(.withdraw(agent, p.id, reason: reason)) }
  }
}
