import LocCore

/// The `network` member of `status` (since 1.8): network positioning on or off, the service,
/// when it last asked and how often. Counters only, never the networks seen.
public struct NetworkStatusView: WireCodable {
  /// `[Network] Enable=`.
  public var enabled: Bool
  /// `[Network] IPLookup=`.
  public var ipLookup: Bool
  /// The service's URL.
  public var service: String
  /// A lookup is under way.
  public var asking: Bool
  /// When the last lookup was sent (ms).
  public var lastAsked: Instant?
  /// When the service last answered, a position or a 404 (ms).
  public var lastAnswered: Instant?
  /// No lookup before this, after failures (ms).
  public var retryAt: Instant?
  /// Why the last lookup gave no position.
  public var lastProblem: String?
  /// Whether the Wi-Fi scene is followed now: a client follows the position, and locd reads
  /// what NetworkManager or wpa_supplicant publish (since 1.10; false from older daemons).
  public var following: Bool
  /// Why the last Wi-Fi scan read nothing (no NetworkManager nor wpa_supplicant on the bus,
  /// no Wi-Fi device), since 1.10.
  public var scanProblem: String?
  /// requests, answers, cacheHits, skipped, scans, unreadAccessPoints, published, moves, and
  /// one counter per failure kind.
  public var counters: [Counter]

  /// The wire form of `r`.
  public init(_ r: NetworkReport) {
    enabled = r.enabled
    ipLookup = r.ipLookup
    service = r.service
    asking = r.asking
    lastAsked = r.lastAsked.map { WireFormat.truncate($0, 3) }
    lastAnswered = r.lastAnswered.map { WireFormat.truncate($0, 3) }
    retryAt = r.retryAt.map { WireFormat.truncate($0, 3) }
    lastProblem = r.lastProblem
    following = r.following
    scanProblem = r.scanProblem
    counters = r.counts.list
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    enabled = try o.bool("enabled")
    ipLookup = try o.bool("ipLookup")
    service = try o.string("service")
    asking = try o.bool("asking")
    lastAsked = try o.optionalInstant("lastAsked")
    lastAnswered = try o.optionalInstant("lastAnswered")
    retryAt = try o.optionalInstant("retryAt")
    lastProblem = try o.optionalString("lastProblem")
    following = try o.optionalBool("following") ?? false
    scanProblem = try o.optionalString("scanProblem")
    counters = try o.counters("counters")
  }

  public var json: JSON { writtenJSON }

  /// The counter named `name` (0 when absent).
  public func count(_ name: String) -> Int { counters.first { $0.name == name }?.value ?? 0 }
}

extension NetworkStatusView: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    s.member("enabled", .bool(enabled))
    s.member("ipLookup", .bool(ipLookup))
    s.member("service", .string(service))
    s.member("asking", .bool(asking))
    s.member("lastAsked", WireFormat.time(lastAsked, 3))
    s.member("lastAnswered", WireFormat.time(lastAnswered, 3))
    s.member("retryAt", WireFormat.time(retryAt, 3))
    s.member("lastProblem", .optional(lastProblem))
    s.member("following", .bool(following))
    if let scanProblem { s.member("scanProblem", .string(scanProblem)) }
    s.key("counters")
    s.counters(counters)
    s.closeObject()
  }
}
