/// The kernel's word on the system clock (adjtimex(2)): whether something that disciplines
/// it (chronyd, systemd-timesyncd, ntpd) vouches for it. Judged as systemd's timedated
/// judges `NTPSynchronized`: by the kernel's bound on the clock's error (`maxerror`), not by
/// STA_UNSYNC, which chronyd leaves set unless `rtcsync` is on (so that the kernel does not
/// write the RTC) while it keeps `maxerror` as small as its estimate.
public enum SystemClockState: Sendable, Hashable, CaseIterable {
  /// `maxerror` under 16 s: the clock is kept right by something else.
  case synchronised
  /// `maxerror` at 16 s: nothing vouches for it (the state at boot; the kernel adds 500 us
  /// a second and stops at 16 s, so a clock left alone for about 9 hours is here too).
  case unsynchronised
  /// adjtimex(2) failed (a seccomp filter without it): unknown, taken as unsynchronised.
  case unknown

  /// The bound at which the kernel gives a clock up (NTP_PHASE_LIMIT in kernel/time/ntp.c:
  /// 16 s, where `maxerror` stops growing and STA_UNSYNC is set).
  public static let givenUpAt = Duration.seconds(16)

  /// The state the kernel's `maxerror` says (nil: adjtimex(2) failed).
  public init(maximumError: Duration?) {
    guard let maximumError else {
      self = .unknown
      return
    }
    self = maximumError < SystemClockState.givenUpAt ? .synchronised : .unsynchronised
  }

  /// The name on the wire: `synchronised`, `unsynchronised`, `unknown`.
  public var name: String {
    switch self {
    case .synchronised: return "synchronised"
    case .unsynchronised: return "unsynchronised"
    case .unknown: return "unknown"
    }
  }

  /// The state named `name` (the inverse of `name`).
  public init?(name: String) {
    guard let s = SystemClockState.allCases.first(where: { $0.name == name }) else { return nil }
    self = s
  }
}

/// Which fixes' time may go to chrony (`[Time] ChronySocket=`) and so set this machine's
/// clock, and why the others may not (decision 0060): two rules chrony's own refclock
/// filters cannot give, since chrony sees only samples, not who wrote them.
///
/// 1. Trust: only a writer no ordinary user can be (`trusts`): a device only root can feed,
///    a peer or server that is root or locd, a peer `AllowUsers=`/`AllowGroups=` names. Never
///    a listener's peer any local user may be, a datagram, another host, or a recording.
///    Positions that are not a receiver's fix (static, manual, cached, network) never make
///    a sample at all.
/// 2. Agreement: while the kernel says the system clock is synchronised, a sample further
///    from it than `[Time] MaxDisagreement=` is not sent: a true receiver is within its
///    output delay (under 2 s), the GPS-UTC offset of one that has not yet learned it (18 s
///    since 2017) and the synchronised clock's own bound (the kernel gives up on it past 16 s)
///    of the clock, about 36 s at worst; a forged or broken one (a week-number rollover, 1024
///    weeks) is far beyond. `MaxDisagreement=off` is for a machine with no clock but the
///    receiver.
public enum ClockSampleRule {
  /// `[Time] MaxDisagreement=`'s default: above the 36 s a true receiver can be off a
  /// synchronised clock, far below any lie that matters.
  public static let defaultMaxDisagreement = Duration.seconds(60)

  /// What becomes of one sample.
  public enum Verdict: Sendable, Hashable {
    /// It goes to chrony.
    case send
    /// Withheld: whoever wrote its fix could be an ordinary user, another host or a recording.
    case untrusted(FixWriter)
    /// Withheld: `seconds` (the receiver's time minus the clock's) from a synchronised clock,
    /// more than the bound.
    case disagrees(seconds: Double)
  }

  /// Whether a fix that `writer` wrote may set the clock (rule 1).
  public static func trusts(_ writer: FixWriter) -> Bool {
    switch writer {
    case .device, .privileged, .namedUser: return true
    case .localUser, .unknownUser, .datagram, .remoteHost, .recording: return false
    }
  }

  /// The verdict on a sample whose fix `writer` wrote, `seconds` from this machine's clock
  /// (the receiver's time minus it), while the kernel says `clock`, under `maxDisagreement`
  /// (nil: `off`). Trust is judged first: an untrusted sample is one whatever its time.
  public static func judge(
    writer: FixWriter, seconds: Double, clock: SystemClockState, maxDisagreement: Duration?
  ) -> Verdict {
    guard trusts(writer) else { return .untrusted(writer) }
    guard clock == .synchronised, let bound = maxDisagreement else { return .send }
    return abs(seconds) > bound.seconds ? .disagrees(seconds: seconds) : .send
  }
}
