import CLocShim
import CSystemd

#if canImport(Glibc)
  import Glibc
#endif

/// The service manager's side of the conversation (sd_notify(3), sd_listen_fds(3)).
/// Every call is a no-op when locd does not run under systemd (no NOTIFY_SOCKET, no LISTEN_FDS).
public enum Systemd {
  /// SD_LISTEN_FDS_START: the first passed descriptor is 3.
  public static let listenFDsStart: Int32 = 3

  /// Sends `state` (e.g. "READY=1\nSTATUS=…") to NOTIFY_SOCKET (sd_notify).
  @discardableResult public static func notify(_ state: String) -> Bool {
    sd_notify(0, state) > 0
  }

  /// The descriptors passed by socket activation, unsetting LISTEN_* so children do not
  /// inherit them (sd_listen_fds(1)).
  public static func listenFDs() -> [Int32] {
    let n = sd_listen_fds(1)
    guard n > 0 else { return [] }
    return (0..<n).map { listenFDsStart + $0 }
  }

  /// Whether `fd` is a listening Unix stream socket (sd_is_socket_unix).
  public static func isListeningUnixSocket(_ fd: Int32) -> Bool {
    sd_is_socket_unix(fd, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0
  }
}
