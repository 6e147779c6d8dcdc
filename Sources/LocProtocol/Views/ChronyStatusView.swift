import LocCore

/// The `chrony` member of `status` (since 1.7; present only while `[Time] ChronySocket=`
/// names a socket): the time samples sent to chrony's SOCK refclock (docs/TIME.md).
public struct ChronyStatusView: WireCodable {
  /// The refclock's socket.
  public var socket: String
  /// Samples sent.
  public var sent: Int
  /// Samples that could not be sent.
  public var failed: Int
  /// The last sample's offset (the receiver's time minus this machine's), seconds.
  public var lastOffset: Double?
  /// Why samples fail, while they do.
  public var lastError: String?
  /// Since when they fail.
  public var failingSince: Instant?

  /// The wire form of `r`.
  public init(_ r: ChronyReport) {
    socket = r.socket
    sent = r.sent
    failed = r.failed
    lastOffset = r.lastOffset
    lastError = r.lastError
    failingSince = r.failingSince
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    socket = try o.string("socket")
    sent = try o.int("sent")
    failed = try o.int("failed")
    lastOffset = try o.optionalNumber("lastOffset")
    lastError = try o.optionalString("lastError")
    failingSince = try o.optionalInstant("failingSince")
  }

  public var json: JSON {
    .object([
      "socket": .string(socket), "sent": .int(sent), "failed": .int(failed),
      "lastOffset": .optional(lastOffset.map { WireFormat.round($0, 6) }), "lastError": .optional(lastError),
      "failingSince": WireFormat.time(failingSince, 3),
    ])
  }
}
