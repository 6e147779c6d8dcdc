import LocCore

/// The samples of `[Time] ChronySocket=`: each fix of a live receiver sends chronyd one
/// (`ChronySample`), fire and forget; what went wrong is counted, said once in the log when
/// it starts and once when it ends, and shown in status (`report`). A machine whose clock
/// is far off is exactly the one that needs them, so this runs before the engine judges the
/// fix (which drops fixes dated ahead of the clock).
final class ChronyRefclock {
  /// What status shows.
  private(set) var report: ChronyReport
  /// The socket samples go from; nil if it could not be made (counted as failures).
  private let socket: FileDescriptor?
  /// Where lines about the socket go.
  private let log: (LogLevel, String) -> Void

  /// Samples for the refclock at `path`.
  init(path: String, log: @escaping (LogLevel, String) -> Void) {
    report = ChronyReport(socket: path)
    self.log = log
    do throws(Errno) {
      socket = try UnixSocket.openDatagram()
    } catch {
      socket = nil
      log(.error, "chrony: cannot make a socket to send time samples from: \(error)")
    }
  }

  /// The socket it sends to.
  var path: String { report.socket }

  /// Sends the sample of `fix`, read at `readAt` on this machine's clock: only a fix with a
  /// position (the receiver's time is trusted once it has one) whose date is not in doubt.
  func send(_ fix: Fix, readAt: Instant) {
    guard fix.mode == .twoD || fix.mode == .threeD, !fix.dateSuspect else { return }
    let sample = ChronySample(readAt: readAt, receiverTime: fix.time)
    let bytes = sample.bytes(timevalSize: Clocks.timevalSize)
    let outcome: Result<Void, Errno>
    switch socket {
    case .none:
      report.failed += 1
      return
    case .some(let s):
      outcome = Result { () throws(Errno) in try UnixSocket.sendDatagram(bytes, from: s, to: report.socket) }
    }
    do throws(Errno) {
      try outcome.get()
      if let error = report.lastError {
        log(.notice, "chrony: time samples reach \(report.socket) again (they failed: \(error))")
      }
      report.sent += 1
      report.lastOffset = sample.offset
      report.lastError = nil
      report.failingSince = nil
    } catch {
      report.failed += 1
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
