import LocCore

/// The `gpsd` member of `status` (since 1.8; present only while `[Gpsd] Enable=yes`): the
/// gpsd-compatible face (docs/GPSD.md).
public struct GpsdStatusView: WireCodable {
  /// Where it listens: the Unix socket's path, `127.0.0.1:PORT`.
  public var endpoints: [String]
  /// Clients connected.
  public var clients: Int
  /// Clients that watch.
  public var watchers: Int
  /// Its counters.
  public var counters: [Counter]

  /// The wire form of `r`.
  public init(_ r: GpsdFaceReport) {
    endpoints = r.endpoints
    clients = r.clients
    watchers = r.watchers
    counters = r.counters
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    endpoints = try o.strings("endpoints")
    clients = try o.int("clients")
    watchers = try o.int("watchers")
    counters = try o.counters("counters")
  }

  public var json: JSON {
    .object([
      "endpoints": .array(endpoints.map { .string($0) }), "clients": .int(clients),
      "watchers": .int(watchers),
      "counters": WireFormat.counters(counters),
    ])
  }
}
