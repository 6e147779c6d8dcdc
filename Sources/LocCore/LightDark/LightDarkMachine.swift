/// The users' light/dark schedules (decision 0065, docs/LIGHTDARK.md): for each user (uid)
/// that asked, the rules, a manual override and the sessions that follow the schedule (the
/// session service, `locctl mode --watch`); the place the schedules are worked out for (the
/// 25 km cell of the position, `LightDarkPlace`, never the position) and the planner for it.
///
/// The machine keeps each user's plan until time passes its next transition or the place, the
/// zone, the clock or the rules change; then it works it out again and, when what the user's
/// followers were last told differs, says whom to tell (`Push`). The engine arms one timer at
/// the earliest transition of a followed schedule (`deadline`). A user's state lives while a
/// session of that user that asked is open.
struct LightDarkMachine: EngineMachine {
  /// Tell `sessions` the schedule `schedule` (a `light-dark` event), because of `reason`.
  struct Push: Sendable, Hashable {
    /// The followers to tell, in id order.
    var sessions: [SessionID]
    /// Their user's schedule now.
    var schedule: LightDarkSchedule
    /// Why.
    var reason: LightDarkReason
  }

  /// One user's schedule.
  private struct User: Sendable, Hashable {
    var rules = LightDarkRules.standard
    var override: LightDarkOverride?
    /// The sessions of this user that asked (followers or not), in id order.
    var sessions: [SessionID] = []
    /// The sessions that follow the schedule (events), in id order.
    var followers: [SessionID] = []
    /// The plan by the Sun, as last worked out.
    var plan: LightDarkPlan?
    /// What the followers were last told (or answered).
    var told: LightDarkSchedule?
  }

  private var place = LightDarkPlace()
  private var planner = TimerPlanner(zone: .utc, coordinate: nil)
  private var users: [UInt32: User] = [:]
  private var owners: [SessionID: UInt32] = [:]
  private var counters = LightDarkCounters()

  /// Most users with a schedule held (each needs an open session, which `MaxClients=`
  /// bounds already; this bounds the machine on its own).
  static let maxUsers = 4096

  /// What status shows: counts, no times and no place.
  var report: LightDarkReport {
    LightDarkReport(
      users: users.count, followers: users.values.reduce(0) { $0 + $1.followers.count },
      overrides: users.values.filter { $0.override != nil }.count, counters: counters)
  }

  /// When the earliest followed schedule changes next (a transition, the end of an
  /// override): the engine's `.lightDark` timer.
  var deadline: Instant? {
    var earliest: Instant? = nil
    for user in users.values where !user.followers.isEmpty {
      for t in [user.plan?.transitions.first?.at, user.override?.until].compactMap({ $0 }) {
        earliest = earliest.map { min($0, t) } ?? t
      }
    }
    return earliest
  }

  /// A regeneration: the position in effect (nil: none) and the zone in effect. The place
  /// follows the position's cell; every schedule is worked out again, and the followers of
  /// those that changed are told, with `reason`.
  mutating func regenerate(
    _ position: Coordinate?, zone: ZoneRules, reason: RegenerationReason, at now: Instant
  ) -> [Push] {
    let centre = place.follow(position)
    // The planner keeps the solar days it computed: it is made anew only when what they
    // depend on changed (new zone data may have changed the local days). Rules do not make
    // it anew: each day it computed gains the events another rule asks for the first time
    // it is asked, so a user changing rules back and forth costs a day scan once a date.
    if centre != planner.coordinate || zone.name != planner.zone.name || reason == .timeZoneData {
      planner = TimerPlanner(zone: zone, coordinate: centre, events: LightDarkRules.standard.events)
    }
    var pushes: [Push] = []
    for uid in users.keys.sorted() {
      if let push = replan(uid, at: now, reason: .regenerated(reason), force: true) { pushes.append(push) }
    }
    return pushes
  }

  /// `light-dark` from `session` of user `uid`: its schedule, after taking `rules` as the
  /// user's (nil: keep them) and, with `follow`, making the session a follower. Other
  /// followers of the user are told when the rules change the schedule.
  mutating func ask(
    _ session: SessionID, uid: UInt32, rules: LightDarkRules?, follow: Bool, at now: Instant
  ) -> Result<(LightDarkSchedule, [Push]), RequestError> {
    guard users[uid] != nil || users.count < LightDarkMachine.maxUsers else {
      return .failure(RequestError(.failed, "\(LightDarkMachine.maxUsers) users already have a schedule"))
    }
    counters.requests += 1
    join(session, uid: uid, follow: follow)
    var pushes: [Push] = []
    if let rules, rules != users[uid]?.rules {
      users[uid]?.rules = rules
      users[uid]?.plan = nil
      if let push = replan(uid, at: now, reason: .rules, force: true, except: session) { pushes.append(push) }
    }
    // A plan made for this answer tells the other followers too, if it changed.
    if let push = replan(uid, at: now, reason: .transition, force: false, except: session) {
      pushes.append(push)
    }
    return .success((schedule(uid), pushes))
  }

  /// `set-mode` from `session` of user `uid`: the override `change` asks for; the user's
  /// followers are told when the mode in effect changes.
  mutating func set(_ change: ModeChange, from session: SessionID, uid: UInt32, at now: Instant)
    -> Result<(LightDarkSchedule, [Push]), RequestError>
  {
    guard users[uid] != nil || users.count < LightDarkMachine.maxUsers else {
      return .failure(RequestError(.failed, "\(LightDarkMachine.maxUsers) users already have a schedule"))
    }
    counters.requests += 1
    join(session, uid: uid, follow: false)
    var pushes: [Push] = []
    if let push = replan(uid, at: now, reason: .transition, force: false, except: session) {
      pushes.append(push)
    }
    guard var user = users[uid], let plan = user.plan else {
      preconditionFailure("a user who asked has a plan")
    }
    let inEffect = user.override?.mode ?? plan.scheduled
    let wanted: LightDarkMode?
    switch change {
    case .dark: wanted = .dark
    case .light: wanted = .light
    // From an unknown mode (no position, no override), toggling means dark: light is what a
    // desktop without a preference shows.
    case .toggle: wanted = (inEffect ?? .light).opposite
    case .auto: wanted = nil
    }
    // Asking for what the schedule gives anyway ends an override instead of making one.
    if let wanted, wanted != plan.scheduled {
      user.override = LightDarkOverride(mode: wanted, until: plan.transitions.first?.at)
      counters.overrides += 1
    } else {
      user.override = nil
    }
    users[uid] = user
    if let push = tell(uid, at: now, reason: .override, except: session) { pushes.append(push) }
    return .success((schedule(uid), pushes))
  }

  /// The `.lightDark` timer fired (or the engine's time moved past a deadline): the
  /// schedules whose transition came are worked out again, overrides that ended end.
  mutating func due(at now: Instant) -> [Push] {
    var pushes: [Push] = []
    for uid in users.keys.sorted() where !(users[uid]?.followers.isEmpty ?? true) {
      if let push = replan(uid, at: now, reason: .transition, force: false) { pushes.append(push) }
    }
    return pushes
  }

  /// A session went away: it follows no more; its user's state goes with the last session
  /// of that user that asked.
  mutating func closed(_ session: SessionID) {
    guard let uid = owners.removeValue(forKey: session), var user = users[uid] else { return }
    SessionMachine.place(session, false, in: &user.sessions)
    SessionMachine.place(session, false, in: &user.followers)
    users[uid] = user.sessions.isEmpty ? nil : user
  }

  // MARK: Inside

  /// Records that `session` of `uid` asked (and follows, with `follow`).
  private mutating func join(_ session: SessionID, uid: UInt32, follow: Bool) {
    var user = users[uid] ?? User()
    owners[session] = uid
    SessionMachine.place(session, true, in: &user.sessions)
    if follow { SessionMachine.place(session, true, in: &user.followers) }
    users[uid] = user
  }

  /// Works out `uid`'s plan again when `force` or when it no longer holds, ends an override
  /// whose transition came, gives an override without an end the schedule's next transition,
  /// and tells the followers (but `except`) when their schedule changed.
  private mutating func replan(
    _ uid: UInt32, at now: Instant, reason: LightDarkReason, force: Bool, except: SessionID? = nil
  ) -> Push? {
    guard var user = users[uid] else { return nil }
    if force || !(user.plan?.holds(at: now) ?? false) {
      user.plan = LightDarkPlan.make(user.rules, with: &planner, at: now)
    }
    if let until = user.override?.until, now >= until {
      user.override = nil
    } else if user.override != nil, user.override?.until == nil {
      user.override?.until = user.plan?.transitions.first?.at
    }
    users[uid] = user
    return tell(uid, at: now, reason: reason, except: except)
  }

  /// The push for `uid`'s followers (but `except`) if their schedule differs from what they
  /// were last told; records it as told.
  private mutating func tell(_ uid: UInt32, at now: Instant, reason: LightDarkReason, except: SessionID?)
    -> Push?
  {
    guard let user = users[uid], let schedule = schedule(of: user), schedule != user.told else { return nil }
    users[uid]?.told = schedule
    let sessions = user.followers.filter { $0 != except }
    guard !sessions.isEmpty else { return nil }
    counters.events += 1
    return Push(sessions: sessions, schedule: schedule, reason: reason)
  }

  /// `uid`'s schedule, as its plan and override are now.
  private func schedule(_ uid: UInt32) -> LightDarkSchedule {
    guard let user = users[uid], let schedule = schedule(of: user) else {
      preconditionFailure("a user who asked has a plan")
    }
    return schedule
  }

  private func schedule(of user: User) -> LightDarkSchedule? {
    guard let plan = user.plan else { return nil }
    return LightDarkSchedule(
      mode: user.override?.mode ?? plan.scheduled, scheduled: plan.scheduled, since: plan.since,
      transitions: plan.transitions, rules: user.rules, override: user.override, note: plan.note,
      zone: planner.zone.name)
  }
}

/// What the light/dark schedules have done, for status.
public struct LightDarkCounters: Sendable, Hashable {
  /// `light-dark` and `set-mode` requests.
  public var requests = 0
  /// Overrides set.
  public var overrides = 0
  /// `light-dark` events sent (one a change, whatever the number of followers).
  public var events = 0

  /// Counters.
  public init(requests: Int = 0, overrides: Int = 0, events: Int = 0) {
    self.requests = requests
    self.overrides = overrides
    self.events = events
  }
}

/// The light/dark schedules in `status`: how many users and followers, overrides held now,
/// and the counters. No time and no place: what status tells of the place is its own.
public struct LightDarkReport: Sendable, Hashable {
  /// Users with a schedule.
  public var users: Int
  /// Sessions following a schedule.
  public var followers: Int
  /// Overrides holding now.
  public var overrides: Int
  /// The counters.
  public var counters: LightDarkCounters
  /// The counters by name, in this order: `requests`, `overrides`, `events`.
  public var counterList: [Counter] {
    [
      Counter("requests", counters.requests), Counter("overrides", counters.overrides),
      Counter("events", counters.events),
    ]
  }

  /// A report.
  public init(users: Int, followers: Int, overrides: Int, counters: LightDarkCounters) {
    self.users = users
    self.followers = followers
    self.overrides = overrides
    self.counters = counters
  }
}
