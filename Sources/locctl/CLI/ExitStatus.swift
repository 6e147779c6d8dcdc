import LocCore
import LocHost
import LocProtocol

/// Exit statuses of locctl (docs/man/locctl.1, EXIT STATUS). The same mistake gets the same
/// status whether locctl or locd catches it: a bad value is 2 also when locd is the one that
/// refuses it (`invalid-params`), a refusal is 4 from the socket's mode or from locd.
enum ExitStatus {
  /// Success (`wait`: the awaited thing happened).
  static let ok: Int32 = 0
  /// The command failed: locd answered with an error (`failed`, `not-found`,
  /// `already-exists`, ...), did not answer in time, or dropped the connection; a file could
  /// not be read; `locate` found no position; `wait` gave up at its `--timeout`.
  static let failure: Int32 = 1
  /// Wrong usage: unknown command or option, a bad value (also `invalid-params` from locd).
  static let usage: Int32 = 2
  /// locd is not running (nothing answers on the socket).
  static let notRunning: Int32 = 3
  /// Permission denied, by the socket's mode or by locd (`permission-denied`).
  static let permission: Int32 = 4
  /// locd said it is stopping (`daemon-stopping`), e.g. under `watch`.
  static let stopped: Int32 = 5

  /// The status for a failure talking to locd.
  static func of(_ error: ControlClient.Failure) -> Int32 {
    switch error {
    case .notRunning: return notRunning
    case .permissionDenied: return permission
    case .daemon(let reply):
      switch reply.code {
      case .known(.permissionDenied): return permission
      case .known(.invalidParams): return usage
      case .known(.daemonStopping): return stopped
      default: return failure
      }
    case .versionMismatch, .timedOut, .protocolError: return failure
    }
  }
}

/// Connects to locd on the invocation's socket and runs `body`; turns a failure into one
/// clear line on standard error and its exit status.
func withDaemon(_ invocation: Invocation, _ body: (ControlClient) throws(ControlClient.Failure) -> Int32)
  -> Int32
{
  do {
    let client = try ControlClient(path: invocation.socketPath, client: "locctl")
    return try body(client)
  } catch {
    Output.flush()
    var text = "locctl \(invocation.command.name): \(error)"
    if case .daemon(let reply) = error, reply.code == .known(.unknownMethod) {
      text += "; this locd is older than this locctl: update locd"
    }
    printError(text)
    return ExitStatus.of(error)
  }
}

/// Prints `text` and a newline to standard error.
func printError(_ text: String) {
  StandardStreams.writeError(text + "\n")
}
