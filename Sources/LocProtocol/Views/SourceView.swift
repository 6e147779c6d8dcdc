import LocCore

/// The source object (docs/PROTOCOL.md, "source"): a configured source with its state and
/// counters, in `status` and `source-status` events.
public struct SourceView: WireCodable {
  /// A source's connection state on the wire; newer minor versions may add states.
  public enum State: String, Sendable, Hashable, CaseIterable {
    case starting, connected, reconnecting, finished, failed, idle
    /// The default source finds no gpsd on this machine yet (protocol 1.10).
    case waiting
  }

  /// The source's URI.
  public var uri: String
  /// Its state.
  public var state: OpenEnum<State>
  /// When reconnecting, or waiting with an attempt planned: the next attempt, to the second
  /// (the member is absent otherwise).
  public var retryAt: Instant?
  /// The last error, e.g. "connect: Connection refused".
  public var lastError: String?
  /// Named counters, in the daemon's order (`sentences`, `fixes`, ...).
  public var counters: [Counter]
  /// Who can put fixes into it (`SourceTrust`); nil from a daemon before protocol 1.2.
  public var trust: OpenEnum<Trust>?
  /// How far its latest fix time is ahead of (positive) or behind the daemon's clock, in
  /// seconds, when beyond the tolerance (5 min); nil while it agrees. `status` only.
  public var clockOffset: Duration?
  /// Its fixes being dropped one after another, and why; nil when its last fix was taken.
  /// `status` only.
  public var dropping: DroppingView?
  /// What is wrong with it, with its reason and since when; nil (the member absent) while
  /// all is well, and from a daemon before protocol 1.7.
  public var fault: FaultView?

  /// A source's trust on the wire (`SourceTrust`); newer minor versions may add values.
  public enum Trust: String, Sendable, Hashable, CaseIterable {
    case system
    case allowedUsers = "allowed-users"
    case localUsers = "local-users"
    case network
  }

  /// A view from its parts, as they are on the wire.
  public init(
    uri: String, state: OpenEnum<State>, retryAt: Instant? = nil, lastError: String? = nil,
    counters: [Counter] = [], trust: OpenEnum<Trust>? = nil, clockOffset: Duration? = nil,
    dropping: DroppingView? = nil, fault: FaultView? = nil
  ) {
    self.uri = uri
    self.state = state
    self.retryAt = retryAt
    self.lastError = lastError
    self.counters = counters
    self.trust = trust
    self.clockOffset = clockOffset
    self.dropping = dropping
    self.fault = fault
  }

  /// The wire form of `s`, with what acceptance made of its fixes (`status`) when given.
  public init(_ s: SourceSnapshot, fixes: SourceFixReport? = nil) {
    uri = s.uri
    state = OpenEnum(s.state.name)
    switch s.state {
    case .reconnecting(let at), .waiting(let at?): retryAt = WireFormat.truncate(at, 0)
    default: break
    }
    lastError = s.lastError
    counters = s.counters
    trust = OpenEnum(s.trust.description)
    clockOffset = fixes?.clockOffset.map { WireFormat.seconds($0, 0) }
    dropping = fixes?.dropping.map(DroppingView.init)
    fault = s.fault.map(FaultView.init)
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    uri = try o.string("uri")
    state = try o.open("state")
    retryAt = try o.optionalInstant("retryAt")
    lastError = try o.optionalString("lastError")
    counters = try o.counters("counters")
    trust = try o.optionalOpen("trust")
    clockOffset = try o.optionalSeconds("clockOffset")
    dropping = try o.optionalDecode("dropping")
    fault = try o.optionalDecode("fault")
  }

  /// The counter named `name`, if the source has one.
  public func counter(_ name: String) -> Int? { counters.first { $0.name == name }?.value }

  public var json: JSON { writtenJSON }
}

extension SourceView: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    s.member("uri", .string(uri))
    s.member("state", .string(state.word))
    if let retryAt { s.member("retryAt", WireFormat.time(retryAt, 0)) }
    s.member("lastError", .optional(lastError))
    s.key("counters")
    s.counters(counters)
    if let trust { s.member("trust", .string(trust.word)) }
    s.member("clockOffset", WireFormat.seconds(clockOffset))
    s.member("dropping", dropping)
    if let fault { s.member("fault", fault) }
    s.closeObject()
  }
}

/// A source's fixes being dropped one after another (`dropping` in the source object).
public struct DroppingView: WireCodable {
  /// Why the latest was dropped: a key of `rejectedFixes` (`old`, `future`, `outranked`, ...).
  public var reason: OpenEnum<FixAcceptance.Rejection>
  /// How many in a row.
  public var count: Int
  /// When the first came, to the second.
  public var since: Instant
  /// The latest reason in words, for people.
  public var detail: String

  /// The wire form of `d`.
  public init(_ d: SourceFixReport.Dropping) {
    reason = .known(d.reason)
    count = d.count
    since = WireFormat.truncate(d.since, 0)
    detail = d.detail
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    reason = try o.open("reason")
    count = try o.int("count")
    since = try o.instant("since")
    detail = try o.string("detail")
  }

  public var json: JSON { writtenJSON }
}

extension DroppingView: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    s.member("reason", .string(reason.word))
    s.member("count", .int(count))
    s.member("since", WireFormat.time(since, 0))
    s.member("detail", .string(detail))
    s.closeObject()
  }
}

/// What is wrong with a source (`fault` in the source object, protocol 1.7).
public struct FaultView: WireCodable {
  /// Which fault (`SourceFault.Kind`); newer minor versions may add kinds.
  public var kind: OpenEnum<SourceFault.Kind>
  /// What is wrong, in words, as the log says it.
  public var reason: String
  /// When it began, to the second.
  public var since: Instant

  /// A view from its parts, as they are on the wire.
  public init(kind: OpenEnum<SourceFault.Kind>, reason: String, since: Instant) {
    self.kind = kind
    self.reason = reason
    self.since = since
  }

  /// The wire form of `f`.
  public init(_ f: SourceFault) {
    kind = .known(f.kind)
    reason = f.reason
    since = WireFormat.truncate(f.since, 0)
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    kind = try o.open("kind")
    reason = try o.string("reason")
    since = try o.instant("since")
  }

  public var json: JSON { writtenJSON }
}

extension FaultView: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    s.member("kind", .string(kind.word))
    s.member("reason", .string(reason))
    s.member("since", WireFormat.time(since, 0))
    s.closeObject()
  }
}
