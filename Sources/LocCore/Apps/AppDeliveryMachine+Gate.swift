/// The delivery machine's vocabulary and the gate itself, which needs none of its state:
/// what session may get what (authorization × in use × accuracy), where an event goes, and
/// the machine's counters.
extension AppDeliveryMachine {
  /// The verdict of the gate.
  enum Verdict: Sendable, Hashable {
    /// Deliver, at this accuracy.
    case deliver(AccuracyAuthorization)
    /// Hold it while the person is asked to upgrade (provisional always, not in use).
    case hold
    /// Not now: the authorization, or not being in use, does not allow it.
    case refuse(AppAuthorization, inUse: Bool)
  }

  /// Where an event of a gated kind goes among app sessions.
  struct Routing: Sendable {
    /// Sessions that get the event as it is.
    var full: [SessionID] = []
    /// Sessions with reduced accuracy, and the event as they get it.
    var reduced: (notice: Notice, sessions: [SessionID])? = nil
    /// Apps with a session that holds the event (provisional always, not in use), in order.
    var held: [AppKey] = []
    /// Apps not connected that get it queued.
    var absent: [AppKey] = []
  }

  /// What became of an event for one app (its regions, its beacon requests).
  enum Handed: Sendable, Hashable {
    /// Sent to sessions of the app.
    case delivered
    /// Held (provisional always, not in use: the upgrade is asked) or queued (always, not
    /// connected or not listening).
    case waiting
    /// Not sent: the app may not have it now (or no session of it listens and it may not
    /// have it in the background).
    case refused
  }

  /// The gate: what session `s`, whose app has authorization `a`, may get of an event of
  /// `kind` now, given the in-use grace window `grace`.
  static func gate(
    _ s: AppSession, _ a: AppAuthorization, _ kind: EventKind, at now: Instant, grace: Duration
  ) -> Verdict {
    guard kind.isGated else { return .deliver(a.accuracy) }
    let inUse = s.inUse(at: now, grace: grace)
    guard a.allowsInUse else { return .refuse(a, inUse: inUse) }
    if inUse || a.allowsBackground { return .deliver(min(a.accuracy, s.updates?.accuracy ?? .full)) }
    return a.provisional && kind.needsAlways ? .hold : .refuse(a, inUse: false)
  }

  /// The machine's counters (status names them).
  struct Counters: Sendable, Hashable {
    /// Held or queued events dropped because they were older than `MaxEventAge=`.
    var staleDropped = 0
    /// Held or queued events dropped because `MaxQueuedEvents=` was reached.
    var overflowDropped = 0
    /// Held events dropped because the person kept the app to when-in-use (or it lost its grant).
    var heldDiscarded = 0

    var all: [Counter] {
      [
        Counter("staleDropped", staleDropped), Counter("overflowDropped", overflowDropped),
        Counter("heldDiscarded", heldDiscarded),
      ]
    }
  }
}
