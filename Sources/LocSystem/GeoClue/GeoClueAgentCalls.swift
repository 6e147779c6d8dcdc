/// The calls to agents that have no answer yet, counted per user: bookkeeping only, no bus.
/// dbus-daemon counts every unanswered method call of locd's connection against
/// max_replies_per_connection (128 by default) and keeps it until the callee answers or leaves
/// the bus (reply_timeout is "never" by default), so an agent that never answers would use up
/// what every other user's Start and AddAgent need. Here a call holds its slot exactly that
/// long; one user holds at most `maxPerUser`, all together at most `maxTotal`, and the last
/// `maxPerUser` of those only go to users that hold none (so a few users cannot fill it).
struct GeoClueAgentCalls {
  /// What a new call gets.
  enum Decision: Equatable {
    /// A slot.
    case admit
    /// The user's agent has `maxPerUser` calls unanswered.
    case perUserLimit
    /// Every slot is taken, or only the ones kept for users without a call are free.
    case full
  }

  /// Most unanswered calls in all.
  var maxTotal: Int
  /// Most unanswered calls to one user's agent.
  var maxPerUser: Int
  /// Calls without an answer yet, by uid.
  private var tally = UIDTally()
  /// Calls without an answer yet.
  var taken: Int { tally.total }

  /// No call yet.
  init(maxTotal: Int, maxPerUser: Int) {
    self.maxTotal = maxTotal
    self.maxPerUser = maxPerUser
  }

  /// Unanswered calls to the agent of `uid`.
  func held(by uid: UInt32) -> Int { tally.held(by: uid) }

  /// Whether a call to the agent of `uid` may go now.
  func decide(uid: UInt32) -> Decision {
    let held = held(by: uid)
    guard held < maxPerUser else { return .perUserLimit }
    guard taken < maxTotal else { return .full }
    // The last `maxPerUser` slots are for users with none outstanding.
    if held > 0 && taken >= maxTotal - min(maxPerUser, maxTotal) { return .full }
    return .admit
  }

  /// A call to the agent of `uid` went out.
  mutating func take(uid: UInt32) { tally.take(uid: uid) }

  /// A call to the agent of `uid` got its answer (or an error: the agent left, the bus gave up).
  mutating func release(uid: UInt32) { tally.release(uid: uid) }
}
