import LocCore

/// The `chrony` member of `status` (since 1.7; present only while `[Time] ChronySocket=`
/// names a socket): the time samples sent to chrony's SOCK refclock (docs/TIME.md), and
/// since 1.10 those withheld and why (decision 0060).
public struct ChronyStatusView: WireCodable {
  /// Who wrote a withheld sample's fix (`FixWriter`); newer minor versions may add values.
  public enum Writer: String, Sendable, Hashable, CaseIterable {
    case device, privileged
    case namedUser = "named-user"
    case localUser = "local-user"
    case unknownUser = "unknown-user"
    case datagram
    case remoteHost = "remote-host"
    case recording
  }

  /// Why the socket is refused (`ChronySocketRule.Problem`); newer minor versions may add values.
  public enum SocketProblem: String, Sendable, Hashable, CaseIterable {
    case symbolicLink = "symbolic-link"
    case notSocket = "not-a-socket"
    case wrongOwner = "wrong-owner"
    case hardLinked = "hard-linked"
  }

  /// What the kernel says of the system clock (`SystemClockState`).
  public enum Clock: String, Sendable, Hashable, CaseIterable {
    case synchronised, unsynchronised, unknown
  }

  /// A withheld sample: `lastUntrusted` and `lastDisagreement`.
  public struct Withheld: WireCodable, Sendable, Hashable {
    /// The source's URI.
    public var source: String
    /// Who wrote its fix.
    public var writer: OpenEnum<Writer>
    /// The writer's uid, when it is one user.
    public var uid: Int?
    /// The receiver's time minus this machine's, seconds (three decimals).
    public var offset: Double
    /// When the fix was read.
    public var at: Instant

    /// The wire form of `w`.
    public init(_ w: ChronyReport.Withheld) {
      source = w.source
      writer = OpenEnum(w.writer.name)
      uid = w.writer.uid.map(Int.init)
      offset = WireFormat.round(w.seconds, 3)
      at = w.at
    }

    public init(json: JSON, path: WirePath) throws(WireDecodingError) {
      let o = try WireObject(json, path: path)
      source = try o.string("source")
      writer = try o.open("writer")
      uid = try o.optionalInt("uid")
      offset = try o.number("offset")
      at = try o.instant("at")
    }

    public var json: JSON {
      .object([
        "source": .string(source), "writer": .string(writer.word), "uid": .optional(uid),
        "offset": .number(WireFormat.round(offset, 3)), "at": WireFormat.time(at, 3),
      ])
    }
  }

  /// Why the socket is refused and since when.
  public struct Refusal: WireCodable, Sendable, Hashable {
    /// The reason's name.
    public var reason: OpenEnum<SocketProblem>
    /// In words, with the path.
    public var message: String
    /// Since when.
    public var since: Instant

    /// A refusal of `socket` for `problem` since `since`.
    public init(socket: String, problem: ChronySocketRule.Problem, since: Instant) {
      reason = OpenEnum(problem.name)
      message = "\(socket) \(problem)"
      self.since = since
    }

    public init(json: JSON, path: WirePath) throws(WireDecodingError) {
      let o = try WireObject(json, path: path)
      reason = try o.open("reason")
      message = try o.string("message")
      since = try o.instant("since")
    }

    public var json: JSON {
      .object([
        "reason": .string(reason.word), "message": .string(message), "since": WireFormat.time(since, 3),
      ])
    }
  }

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
  /// Samples withheld: whoever wrote their fix is not trusted with the clock (since 1.10).
  public var untrusted: Int
  /// Samples withheld: further than `maxDisagreement` from the synchronised clock (since 1.10).
  public var disagreeing: Int
  /// Samples not sent: the socket is refused (since 1.10).
  public var socketRefused: Int
  /// The latest untrusted sample (since 1.10).
  public var lastUntrusted: Withheld?
  /// The latest sample that disagreed with the synchronised clock (since 1.10).
  public var lastDisagreement: Withheld?
  /// Why the socket is refused, while it is (since 1.10).
  public var refusal: Refusal?
  /// What the kernel said of the clock at the latest trusted sample (since 1.10).
  public var systemClock: OpenEnum<Clock>?
  /// `[Time] MaxDisagreement=`; nil: off, or a daemon before 1.10 (since 1.10).
  public var maxDisagreement: Duration?

  /// The wire form of `r`.
  public init(_ r: ChronyReport) {
    socket = r.socket
    sent = r.sent
    failed = r.failed
    lastOffset = r.lastOffset
    lastError = r.lastError
    failingSince = r.failingSince
    untrusted = r.untrusted
    disagreeing = r.disagreeing
    socketRefused = r.socketRefused
    lastUntrusted = r.lastUntrusted.map(Withheld.init)
    lastDisagreement = r.lastDisagreement.map(Withheld.init)
    refusal = both(r.socketProblem, r.refusedSince).map {
      Refusal(socket: r.socket, problem: $0, since: $1)
    }
    systemClock = r.systemClock.map { OpenEnum($0.name) }
    maxDisagreement = r.maxDisagreement
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    socket = try o.string("socket")
    sent = try o.int("sent")
    failed = try o.int("failed")
    lastOffset = try o.optionalNumber("lastOffset")
    lastError = try o.optionalString("lastError")
    failingSince = try o.optionalInstant("failingSince")
    untrusted = try o.optionalInt("untrusted") ?? 0
    disagreeing = try o.optionalInt("disagreeing") ?? 0
    socketRefused = try o.optionalInt("socketRefused") ?? 0
    lastUntrusted = try o.optionalDecode("lastUntrusted")
    lastDisagreement = try o.optionalDecode("lastDisagreement")
    refusal = try o.optionalDecode("refusal")
    systemClock = try o.optionalOpen("systemClock")
    maxDisagreement = try o.optionalSeconds("maxDisagreement")
  }

  public var json: JSON {
    .object([
      "socket": .string(socket), "sent": .int(sent), "failed": .int(failed),
      "lastOffset": .optional(lastOffset.map { WireFormat.round($0, 6) }), "lastError": .optional(lastError),
      "failingSince": WireFormat.time(failingSince, 3), "untrusted": .int(untrusted),
      "disagreeing": .int(disagreeing), "socketRefused": .int(socketRefused),
      "lastUntrusted": lastUntrusted?.json ?? .null, "lastDisagreement": lastDisagreement?.json ?? .null,
      "refusal": refusal?.json ?? .null, "systemClock": .optional(systemClock?.word),
      "maxDisagreement": WireFormat.seconds(maxDisagreement),
    ])
  }
}

/// Both values, or nil.
private func both<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
  guard let a, let b else { return nil }
  return (a, b)
}
