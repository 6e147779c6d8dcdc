/// One `locctl` subcommand.
protocol LocctlCommand: Sendable {
  /// The word after `locctl`, e.g. "status".
  static var name: String { get }
  /// One line for `locctl --help`.
  static var summary: String { get }
  /// Runs the command with the words after its name and the daemon's socket path (from
  /// `--socket`, else `$LOCD_SOCKET`, else the default; offline commands ignore it);
  /// returns the exit status.
  static func run(_ arguments: [String], socket: String) -> Int32
}

/// Exit statuses of locctl (documented in docs/man/locctl.1, EXIT STATUS).
enum ExitStatus {
  /// Success.
  static let ok: Int32 = 0
  /// The daemon answered with an error, did not answer in time, or the command failed.
  static let failure: Int32 = 1
  /// Wrong usage: unknown command or option, bad value.
  static let usage: Int32 = 2
  /// locd is not running (the socket does not answer).
  static let notRunning: Int32 = 3
  /// Permission denied by the daemon or the socket.
  static let permission: Int32 = 4
}
