import CLocShim
import CSystemd

/// The service manager's side of the conversation (sd_notify(3), sd_listen_fds(3)).
/// Every call is a no-op when locd does not run under systemd (no NOTIFY_SOCKET, no LISTEN_FDS).
public enum Systemd {
  /// SD_LISTEN_FDS_START: the first passed descriptor is 3.
  public static let listenFDsStart: Int32 = 3

  /// Sends `state` (e.g. "READY=1\nSTATUS=…") to NOTIFY_SOCKET (sd_notify).
  @discardableResult public static func notify(_ state: String) -> Bool {
    sd_notify(0, state) > 0
  }

  /// The first descriptor passed by socket activation, owned from now on, or nil when
  /// none was passed (sd_listen_fds(3), which unsets LISTEN_* so children do not inherit
  /// them, and marks the descriptors close-on-exec). locd.socket passes one.
  public static func passedSocket() -> FileDescriptor? {
    sd_listen_fds(1) > 0 ? FileDescriptor(owning: listenFDsStart) : nil
  }

  /// Whether `socket` is a listening Unix stream socket (sd_is_socket_unix(3)).
  public static func isListeningUnixSocket(_ socket: borrowing FileDescriptor) -> Bool {
    sd_is_socket_unix(socket.rawValue, SocketAddress.streamSocket, 1, nil, 0) > 0
  }
}
