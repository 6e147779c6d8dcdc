/// The NMEA output's settings (`[NMEAOut]`, docs/NMEAOUT.md): a pseudo-terminal that streams
/// NMEA 0183 built from locd's fixes, for programs that read only a serial GPS. Off by
/// default. Who may read it is the pty's group and mode: that is its whole policy.
public struct NMEAOutSettings: Sendable, Hashable {
  /// Serve the pty (`Enable=`).
  public var enabled = false
  /// The stable symbolic link to the pty's slave (`Link=`): the "serial port" to configure.
  public var link = "/run/locd/nmea0"
  /// The slave's group (`Group=`; nil: the daemon's).
  public var group: String? = "locd"
  /// The slave's permission bits (`Mode=`): 0660, the group reads.
  public var mode: UInt32 = 0o660
  /// Also stream the sentences on this loopback TCP port (`ListenPort=`; nil: not at all).
  /// Its clients are identified and authorized as the gpsd face's are (docs/NMEAOUT.md).
  public var listenPort: Int? = nil
  /// Most clients of the TCP port at once (`MaxClients=`).
  public var maxClients = 64
  /// Of `maxClients`, the ones kept for peers with admin access (`ReservedAdminClients=`), as
  /// the gpsd face keeps its own.
  public var reservedAdminClients = 8
  /// Most clients of the TCP port of one uid below admin access (`MaxClientsPerUser=`).
  public var maxClientsPerUser = 16

  /// The defaults.
  public init() {}
}
