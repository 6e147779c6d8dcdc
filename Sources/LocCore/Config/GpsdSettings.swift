/// The gpsd-compatible face's settings (`[Gpsd]`, docs/GPSD.md): where it listens and how
/// many clients it serves. Off by default.
public struct GpsdSettings: Sendable, Hashable {
  /// Serve gpsd's JSON protocol (`Enable=`).
  public var enabled = false
  /// The Unix socket clients connect to (`Socket=`): libgps opens a path given as its host;
  /// empty: none (then only `ListenPort=`).
  public var socketPath: String? = "/run/locd/gpsd.sock"
  /// Also listen on this loopback TCP port (`ListenPort=`; nil: not at all). gpsd's own port
  /// is 2947 (gpsd(8)), where libgps clients look by default.
  public var listenPort: Int? = nil
  /// Most clients at once, Unix and TCP together (`MaxClients=`).
  public var maxClients = 128
  /// Of `maxClients`, the ones kept for peers with admin access (root, locd's uid,
  /// `AdminGroup=`; `ReservedAdminClients=`): the others together take at most the rest, so
  /// no crowd of users can lock root's gpspipe out, as `[Limits] ReservedAdminClients=` does
  /// for the socket.
  public var reservedAdminClients = 16
  /// Most clients of one uid below admin access (`MaxClientsPerUser=`).
  public var maxClientsPerUser = 16

  /// Most bytes queued for one client that does not read (`MaxQueuedBytesPerClient=`): past
  /// it the client is dropped, as a slow consumer of the native socket is.
  public var maxQueuedBytesPerClient = 256 * 1024

  /// The defaults.
  public init() {}
}
