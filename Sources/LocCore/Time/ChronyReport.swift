/// What `status` says of the samples sent to chrony (`[Time] ChronySocket=`): those sent,
/// those that failed, and those withheld and why (decision 0060).
public struct ChronyReport: Sendable, Hashable {
  /// A sample withheld: from which source, when, and what made it so.
  public struct Withheld: Sendable, Hashable {
    /// The source's URI.
    public var source: String
    /// Who wrote its fix (for an untrusted one).
    public var writer: FixWriter
    /// The receiver's time minus this machine's, seconds.
    public var seconds: Double
    /// When the fix was read (this machine's clock).
    public var at: Instant

    /// A sample from `source` written by `writer`, `seconds` off the clock, read `at`.
    public init(source: String, writer: FixWriter, seconds: Double, at: Instant) {
      self.source = source
      self.writer = writer
      self.seconds = seconds
      self.at = at
    }
  }

  /// The refclock's socket.
  public var socket: String
  /// Samples chronyd took (the datagram was sent).
  public var sent: Int
  /// Samples that could not be sent (chronyd not running, its socket missing or full).
  public var failed: Int
  /// The last sample's offset in seconds, if one was sent.
  public var lastOffset: Double?
  /// Why the last sample could not be sent, while the failures last.
  public var lastError: String?
  /// Since when samples have been failing.
  public var failingSince: Instant?
  /// Samples withheld because whoever wrote their fix is not trusted with the clock.
  public var untrusted = 0
  /// Samples withheld for disagreeing with the synchronised clock by more than the bound.
  public var disagreeing = 0
  /// Samples not sent because the socket is refused (`socketProblem`).
  public var socketRefused = 0
  /// The latest untrusted sample.
  public var lastUntrusted: Withheld? = nil
  /// The latest sample that disagreed with the synchronised clock.
  public var lastDisagreement: Withheld? = nil
  /// Why the socket is refused, while it is.
  public var socketProblem: ChronySocketRule.Problem? = nil
  /// Since when it is refused.
  public var refusedSince: Instant? = nil
  /// What the kernel said of the system clock at the latest trusted sample; nil before one.
  public var systemClock: SystemClockState? = nil
  /// `[Time] MaxDisagreement=` (nil: off).
  public var maxDisagreement: Duration?

  /// A report of nothing sent yet to `socket`, with the bound `maxDisagreement`.
  public init(socket: String, maxDisagreement: Duration? = ClockSampleRule.defaultMaxDisagreement) {
    self.socket = socket
    self.maxDisagreement = maxDisagreement
    sent = 0
    failed = 0
  }
}
