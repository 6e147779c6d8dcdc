import LocCore
import LocProtocol

/// The samples of `[Time] ChronySocket=`: each fix of a live receiver sends chronyd one
/// (`ChronySample`), fire and forget, when `ClockSampleRule` lets it (decision 0060): only a
/// fix whose writer no ordinary user can be, and, while the kernel says the clock is
/// synchronised, only one within `[Time] MaxDisagreement=` of it. The socket is reached and
/// checked by `ChronyEndpoint`. What was withheld, refused or failed is counted, said in the
/// log once when it starts (and when it ends), and shown in status (`report`). A machine
/// whose clock is far off is exactly the one that needs the samples, so this runs before the
/// engine judges the fix (which drops fixes dated ahead of the clock).
final class ChronyRefclock {
  /// What status shows.
  private(set) var report: ChronyReport
  /// Where samples go.
  private let endpoint: ChronyEndpoint
  /// Where lines about the samples go.
  private let log: (LogLevel, String) -> Void
  /// The sources whose untrusted samples the log has named (each once).
  private var untrustedSaid: Set<String> = []
  /// Whether trusted samples are being withheld for disagreeing with the clock now.
  private var inDisagreement = false

  /// Samples for the refclock at `path`, which only `owners` (root and chrony's user) may
  /// own, withheld past `maxDisagreement` (nil: never) from a synchronised clock.
  init(
    path: String, owners: Set<UInt32>, maxDisagreement: Duration?, log: @escaping (LogLevel, String) -> Void
  ) {
    report = ChronyReport(socket: path, maxDisagreement: maxDisagreement)
    endpoint = ChronyEndpoint(path: path, owners: owners)
    self.log = log
  }

  /// The socket it sends to.
  var path: String { report.socket }

  /// `[Time] MaxDisagreement=` (nil: off); a reload may change it.
  var maxDisagreement: Duration? {
    get { report.maxDisagreement }
    set { report.maxDisagreement = newValue }
  }

  /// Sends the sample of `fix` from `source`, which `writer` wrote, read at `readAt` on this
  /// machine's clock: only a fix with a position (the receiver's time is trusted once it has
  /// one) whose date is not in doubt makes a sample, and the rule decides whether it goes.
  func send(_ fix: Fix, readAt: Instant, writer: FixWriter, source: String) {
    guard fix.mode == .twoD || fix.mode == .threeD, !fix.dateSuspect else { return }
    let sample = ChronySample(readAt: readAt, receiverTime: fix.time)
    let trusted = ClockSampleRule.trusts(writer)
    let clock = trusted ? KernelClock.state : SystemClockState.unknown
    if trusted { report.systemClock = clock }
    let withheld = ChronyReport.Withheld(source: source, writer: writer, seconds: sample.offset, at: readAt)
    switch ClockSampleRule.judge(
      writer: writer, seconds: sample.offset, clock: clock, maxDisagreement: report.maxDisagreement)
    {
    case .untrusted:
      report.untrusted += 1
      report.lastUntrusted = withheld
      if untrustedSaid.insert(source).inserted {
        log(
          .notice,
          "chrony: the time of \(source) is not sent: its fixes come from \(writer.description), who may not set the clock (docs/TIME.md)"
        )
      }
    case .disagrees(let seconds):
      report.disagreeing += 1
      report.lastDisagreement = withheld
      if !inDisagreement {
        inDisagreement = true
        let bound = report.maxDisagreement.map(TimeSpan.format) ?? "off"
        log(
          .warning,
          "chrony: the time of \(source) is \(WireFormat.round(seconds, 1)) s from the synchronised system clock, more than MaxDisagreement=\(bound): not sent"
        )
      }
    case .send:
      deliver(sample, at: readAt)
    }
  }

  private func deliver(_ sample: ChronySample, at readAt: Instant) {
    switch endpoint.send(sample.bytes(timevalSize: Clocks.timevalSize)) {
    case .sent:
      if let error = report.lastError {
        log(.notice, "chrony: time samples reach \(report.socket) again (they failed: \(error))")
      }
      if let problem = report.socketProblem {
        log(.notice, "chrony: \(report.socket) is taken again (it was refused: it \(problem))")
      }
      if inDisagreement {
        log(.notice, "chrony: the receiver's time agrees with the system clock again; samples go")
        inDisagreement = false
      }
      report.sent += 1
      report.lastOffset = sample.offset
      report.lastError = nil
      report.failingSince = nil
      report.socketProblem = nil
      report.refusedSince = nil
    case .refused(let problem):
      report.socketRefused += 1
      if report.socketProblem != problem {
        log(.warning, "chrony: refusing ChronySocket=\(report.socket): it \(problem); no samples go there")
        if report.socketProblem == nil { report.refusedSince = readAt }
      }
      report.socketProblem = problem
    case .failed(let error):
      report.failed += 1
      report.socketProblem = nil
      report.refusedSince = nil
      let why = error.description
      if report.lastError != why {
        let hint = " (is chronyd running with 'refclock SOCK \(report.socket)' in chrony.conf?)"
        log(.notice, "chrony: cannot send time samples to \(report.socket): \(why)\(hint)")
        if report.lastError == nil { report.failingSince = readAt }
      }
      report.lastError = why
    }
  }
}
