import LocCore

/// The source object (docs/PROTOCOL.md, "source"): a configured source with its state and
/// counters, in `status` and `source-status` events.
public struct SourceView: WireCodable {
  /// A source's connection state on the wire; newer minor versions may add states.
  public enum State: String, Sendable, Hashable, CaseIterable {
    case starting, connected, reconnecting, finished, failed, idle
  }

  /// The source's URI.
  public var uri: String
  /// Its state.
  public var state: OpenEnum<State>
  /// When reconnecting: the next attempt, to the second (the member is absent otherwise).
  public var retryAt: Instant?
  /// The last error, e.g. "connect: Connection refused".
  public var lastError: String?
  /// Named counters, in the daemon's order (`sentences`, `fixes`, ...).
  public var counters: [Counter]

  /// A view from its parts, as they are on the wire.
  public init(
    uri: String, state: OpenEnum<State>, retryAt: Instant? = nil, lastError: String? = nil,
    counters: [Counter] = []
  ) {
    self.uri = uri
    self.state = state
    self.retryAt = retryAt
    self.lastError = lastError
    self.counters = counters
  }

  /// The wire form of `s`.
  public init(_ s: SourceSnapshot) {
    uri = s.uri
    state = OpenEnum(s.state.name)
    if case .reconnecting(let at) = s.state { retryAt = WireFormat.truncate(at, 0) }
    lastError = s.lastError
    counters = s.counters
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    uri = try o.string("uri")
    state = try o.open("state")
    retryAt = try o.optionalInstant("retryAt")
    lastError = try o.optionalString("lastError")
    counters = try o.counters("counters")
  }

  /// The counter named `name`, if the source has one.
  public func counter(_ name: String) -> Int? { counters.first { $0.name == name }?.value }

  public var json: JSON {
    var o: JSONObject = ["uri": .string(uri), "state": .string(state.word)]
    if let retryAt { o["retryAt"] = WireFormat.time(retryAt, 0) }
    o["lastError"] = .optional(lastError)
    o["counters"] = WireFormat.counters(counters)
    return .object(o)
  }
}
