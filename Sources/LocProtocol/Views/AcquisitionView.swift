import LocCore

/// The acquisition object (docs/PROTOCOL.md, "acquisition"): when locd wants fixes, why,
/// and how the last attempt ended. Durations in seconds, times to the second.
public struct AcquisitionView: WireCodable {
  /// One change of phase.
  public struct Transition: WireCodable {
    /// The stage left; newer minor versions may add stages.
    public var from: OpenEnum<Acquisition.Stage>
    /// The stage entered.
    public var to: OpenEnum<Acquisition.Stage>
    /// Why: a trigger name (`start`, `one-shot`, ...) or a sentence (`fix within 50 m, stable`).
    public var reason: String
    /// When, to the second (only in the acquisition object; events carry their own time).
    public var at: Instant

    /// A transition.
    public init(
      from: OpenEnum<Acquisition.Stage>, to: OpenEnum<Acquisition.Stage>, reason: String, at: Instant
    ) {
      self.from = from
      self.to = to
      self.reason = reason
      self.at = at
    }

    /// The wire form of `t`.
    public init(_ t: Acquisition.Transition) {
      self.init(
        from: .known(t.from), to: .known(t.to), reason: t.reason.description, at: WireFormat.truncate(t.at, 0)
      )
    }

    public init(json: JSON, path: WirePath) throws(WireDecodingError) {
      let o = try WireObject(json, path: path)
      from = try o.open("from")
      to = try o.open("to")
      reason = try o.string("reason")
      at = try o.instant("at")
    }

    public var json: JSON { writtenJSON }
  }

  /// How the last attempt ended.
  public enum Outcome: WireCodable {
    /// A good, stable fix came, with its accuracy (to 0.1 m).
    case settled(at: Instant, accuracy: Meters?)
    /// No good fix before the timeout.
    case timedOut(at: Instant)

    /// The wire form of `o`.
    public init(_ o: Acquisition.Outcome) {
      switch o {
      case .settled(let at, let accuracy):
        self = .settled(at: WireFormat.truncate(at, 0), accuracy: accuracy.map(WireFormat.radius))
      case .timedOut(let at): self = .timedOut(at: WireFormat.truncate(at, 0))
      }
    }

    public init(json: JSON, path: WirePath) throws(WireDecodingError) {
      let o = try WireObject(json, path: path)
      let at = try o.instant("at")
      switch try o.string("result") {
      case "settled": self = .settled(at: at, accuracy: try o.optionalMeters("accuracy"))
      case "timed-out": self = .timedOut(at: at)
      case let other: throw o.error("result", "must be settled or timed-out, got \"\(other.prefix(64))\"")
      }
    }

    public var json: JSON { writtenJSON }
  }

  /// `on-demand` or `continuous`; newer minor versions may add policies.
  public var policy: OpenEnum<Acquisition.Policy.Mode>
  /// The periodic refresh (`RefreshInterval=`).
  public var refreshInterval: Duration
  /// How long an attempt may take (`Timeout=`).
  public var timeout: Duration
  /// A fix at least this accurate settles (`Accuracy=`).
  public var accuracy: Meters
  /// `idle` or `acquiring` (never `settled`: that is a stage passed through).
  public var phase: Acquisition.Stage
  /// When the current attempt began (acquiring only).
  public var since: Instant?
  /// When it gives up (nil: idle, or held open).
  public var deadline: Instant?
  /// The triggers keeping acquisition on; empty when idle.
  public var reasons: [OpenEnum<Acquisition.Trigger>]
  /// The last change of phase.
  public var lastTransition: Transition?
  /// How the last attempt ended.
  public var lastOutcome: Outcome?
  /// The next periodic refresh or retry (idle only).
  public var nextRefresh: Instant?
  /// Consecutive timeouts.
  public var failures: Int
  /// Attempts since the daemon started.
  public var attempts: Int
  /// Sessions with a `location` subscription.
  public var subscribers: Int
  /// Waiting `locate` requests.
  public var pendingLocates: Int

  /// Whether receivers are kept powered (`receivers`: `active`, else `released`).
  public var receiversActive: Bool { phase == .acquiring }

  /// The wire form of `a`.
  public init(_ a: AcquisitionReport) {
    policy = .known(a.policy.mode)
    refreshInterval = WireFormat.seconds(a.policy.refreshInterval, 6)
    timeout = WireFormat.seconds(a.policy.timeout, 6)
    accuracy = a.policy.accuracy
    phase = a.phase
    since = a.since.map { WireFormat.truncate($0, 0) }
    deadline = a.deadline.map { WireFormat.truncate($0, 0) }
    reasons = a.reasons.map { .known($0) }
    lastTransition = a.lastTransition.map(Transition.init)
    lastOutcome = a.lastOutcome.map(Outcome.init)
    nextRefresh = a.nextRefresh.map { WireFormat.truncate($0, 0) }
    failures = a.failures
    attempts = a.attempts
    subscribers = a.subscribers
    pendingLocates = a.pendingLocates
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    policy = try o.open("policy")
    refreshInterval = try o.seconds("refreshInterval")
    timeout = try o.seconds("timeout")
    accuracy = try o.meters("accuracy")
    phase = try o.word("phase")
    guard phase != .settled else { throw o.error("phase", "must be idle or acquiring") }
    let receivers = try o.string("receivers")
    guard receivers == (phase == .acquiring ? "active" : "released") else {
      throw o.error("receivers", "\"\(receivers.prefix(64))\" does not match phase \(phase.rawValue)")
    }
    reasons = try o.strings("reasons").map { OpenEnum($0) }
    failures = try o.int("failures")
    attempts = try o.int("attempts")
    subscribers = try o.int("subscribers")
    pendingLocates = try o.int("pendingLocates")
    since = try o.optionalInstant("since")
    deadline = try o.optionalInstant("deadline")
    nextRefresh = try o.optionalInstant("nextRefresh")
    lastTransition = try o.optionalDecode("lastTransition")
    lastOutcome = try o.optionalDecode("lastOutcome")
  }

  public var json: JSON { writtenJSON }
}

extension AcquisitionView: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    s.member("policy", .string(policy.word))
    s.member("refreshInterval", .number(refreshInterval.seconds))
    s.member("timeout", .number(timeout.seconds))
    s.member("accuracy", .number(accuracy.value))
    s.member("phase", .string(phase.rawValue))
    s.member("receivers", .string(receiversActive ? "active" : "released"))
    s.key("reasons")
    s.array(reasons) { s, reason in s.value(.string(reason.word)) }
    s.member("failures", .int(failures))
    s.member("attempts", .int(attempts))
    s.member("subscribers", .int(subscribers))
    s.member("pendingLocates", .int(pendingLocates))
    s.member("since", WireFormat.time(since, 0))
    s.member("deadline", WireFormat.time(deadline, 0))
    s.member("nextRefresh", WireFormat.time(nextRefresh, 0))
    s.member("lastTransition", lastTransition)
    s.member("lastOutcome", lastOutcome)
    s.closeObject()
  }
}

extension AcquisitionView.Transition: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    s.member("from", .string(from.word))
    s.member("to", .string(to.word))
    s.member("reason", .string(reason))
    s.member("at", WireFormat.time(at, 0))
    s.closeObject()
  }
}

extension AcquisitionView.Outcome: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    switch self {
    case .settled(let at, let accuracy):
      s.member("result", .string("settled"))
      s.member("at", WireFormat.time(at, 0))
      s.member("accuracy", WireFormat.meters(accuracy))
    case .timedOut(let at):
      s.member("result", .string("timed-out"))
      s.member("at", WireFormat.time(at, 0))
      s.member("accuracy", .null)
    }
    s.closeObject()
  }
}
