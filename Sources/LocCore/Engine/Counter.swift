/// A named counter.
public struct Counter: Sendable, Hashable {
  /// Counter name, e.g. "sentences".
  public var name: String
  /// Its value.
  public var value: Int
  /// A counter.
  public init(_ name: String, _ value: Int) {
    self.name = name
    self.value = value
  }
}

/// Counters of the socket server (connection-level problems the engine never sees).
public struct ServerCounters: Sendable, Hashable {
  /// Connections accepted in total.
  public var accepted = 0
  /// Connections refused because of `maxClients` (or because only the slots kept for
  /// administrators were free).
  public var refusedTooMany = 0
  /// Connections refused because their uid had `maxClientsPerUser` open.
  public var refusedPerUser = 0
  /// Connections answered `too-many-clients` because locd was out of file descriptors.
  public var refusedNoDescriptors = 0
  /// Clients dropped because their queue overflowed.
  public var droppedSlow = 0
  /// Clients dropped because they did not complete the handshake in time.
  public var droppedHandshake = 0
  /// Sessions closed because they could do nothing for `idleTimeout`.
  public var droppedIdle = 0
  /// Lines that were not valid JSON.
  public var invalidJSON = 0
  /// Lines that were JSON but not a valid request.
  public var invalidRequests = 0
  /// Lines longer than `maxRequestBytes`.
  public var tooLarge = 0
  /// Requests with an unknown method.
  public var unknownMethods = 0
  /// Requests before the handshake.
  public var beforeHandshake = 0
  /// Requests refused for lack of permission.
  public var permissionDenied = 0
  /// The counters in a stable order.
  public var all: [Counter] {
    [
      Counter("accepted", accepted), Counter("refusedTooMany", refusedTooMany),
      Counter("refusedPerUser", refusedPerUser), Counter("refusedNoDescriptors", refusedNoDescriptors),
      Counter("droppedSlow", droppedSlow), Counter("droppedHandshake", droppedHandshake),
      Counter("droppedIdle", droppedIdle),
      Counter("invalidJSON", invalidJSON), Counter("invalidRequests", invalidRequests),
      Counter("tooLarge", tooLarge), Counter("unknownMethods", unknownMethods),
      Counter("beforeHandshake", beforeHandshake), Counter("permissionDenied", permissionDenied),
    ]
  }
  /// All zero.
  public init() {}
}
