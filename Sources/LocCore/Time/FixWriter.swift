/// Who could have written the bytes a fix was decoded from, as far as the kernel lets locd
/// tell: what decides whether the fix's time may go to chrony and so set this machine's clock
/// (`ClockSampleRule`; decision 0060). A position from another user is a nuisance the
/// resolver ranks away (`SourceTrust`); a time from another user moves the clock of every
/// program on the machine, so the time's rule asks who wrote, fix by fix.
public enum FixWriter: Sendable, Hashable {
  /// A device of this machine that only root can feed: a serial line whose device file root
  /// (or locd) owns, a modem's GNSS through ModemManager (root's, on the system bus).
  case device
  /// A peer of a listening source, or a server on loopback (gpsd, an NMEA server), that
  /// runs as root or as locd's own user.
  case privileged
  /// A peer of a listening source that `AllowUsers=` or `AllowGroups=` names: root's
  /// configuration chose it, as it chooses a device.
  case namedUser(uid: UInt32)
  /// An ordinary user: a peer a listener admitted because no list is set (any local user
  /// can connect), a server on loopback that runs as that user, a device file it owns (a
  /// pseudo-terminal it opened).
  case localUser(uid: UInt32)
  /// A peer or server whose uid the kernel did not tell (another host, a socket already
  /// closing, no NETLINK_SOCK_DIAG).
  case unknownUser
  /// A datagram (`nmea+udp`): any local user, or any host that reaches the port, can send one,
  /// and nothing says who did.
  case datagram
  /// A host elsewhere: a connection to an address beyond loopback.
  case remoteHost
  /// A recording (`replay:`): its times are the recorded ones, not now's.
  case recording

  /// The writer of a listener's peer with `uid` (nil: unknown) standing as `standing`, when
  /// `AllowUsers=`/`AllowGroups=` restrict the listener (`restricted`) or not.
  public static func peer(uid: UInt32?, standing: PeerAdmission.Standing, restricted: Bool) -> FixWriter {
    switch (standing, uid) {
    case (.privileged, _): return .privileged
    case (.admitted, let uid?): return restricted ? .namedUser(uid: uid) : .localUser(uid: uid)
    case (.admitted, nil), (.notAllowed, _), (.unknown, _): return .unknownUser
    }
  }

  /// The writer of a device file that `owner` owns (nil: unknown): a device when root or
  /// `daemonUID` owns it, else the user who does (a pseudo-terminal that user opened).
  public static func device(owner: UInt32?, daemonUID: UInt32) -> FixWriter {
    let writer = FixWriter.owner(owner, daemonUID: daemonUID)
    return writer == .privileged ? .device : writer
  }

  /// The writer behind a socket or file that `owner` owns (nil: unknown): root and
  /// `daemonUID` are privileged, anyone else an ordinary user.
  public static func owner(_ owner: UInt32?, daemonUID: UInt32) -> FixWriter {
    guard let owner else { return .unknownUser }
    return owner == 0 || owner == daemonUID ? .privileged : .localUser(uid: owner)
  }

  /// The name on the wire and in status: `device`, `privileged`, `named-user`, `local-user`,
  /// `unknown-user`, `datagram`, `remote-host`, `recording`.
  public var name: String {
    switch self {
    case .device: return "device"
    case .privileged: return "privileged"
    case .namedUser: return "named-user"
    case .localUser: return "local-user"
    case .unknownUser: return "unknown-user"
    case .datagram: return "datagram"
    case .remoteHost: return "remote-host"
    case .recording: return "recording"
    }
  }

  /// The uid, where the writer is one user.
  public var uid: UInt32? {
    switch self {
    case .namedUser(let uid), .localUser(let uid): return uid
    default: return nil
    }
  }

  /// In words, after "written by": "a local user (uid 65534)".
  public var description: String {
    switch self {
    case .device: return "a device only root can feed"
    case .privileged: return "root or locd"
    case .namedUser(let uid): return "a user AllowUsers=/AllowGroups= names (uid \(uid))"
    case .localUser(let uid): return "a local user (uid \(uid))"
    case .unknownUser: return "a user the kernel did not name"
    case .datagram: return "anyone who can send a datagram to the port"
    case .remoteHost: return "another host"
    case .recording: return "a recording"
    }
  }

  /// How a source's writer is known, kind by kind (`SourceURI.writerBasis`).
  public enum Basis: Sendable, Hashable {
    /// From the kind alone: every fix has this writer.
    case fixed(FixWriter)
    /// From the owner of the device file, learned when it is opened (`serial:`).
    case deviceOwner
    /// From the owner of the server's end of the connection, learned for each connection
    /// (NETLINK_SOCK_DIAG; `gpsd://` and `nmea+tcp://` on loopback).
    case serverOwner
    /// From each peer, learned as it connects (SO_PEERCRED, NETLINK_SOCK_DIAG; the listeners).
    case eachPeer
  }
}

extension SourceURI {
  /// How the writer of this source's fixes is known (decision 0060): a serial line by its
  /// device file's owner; a modem as a device (ModemManager is root's and owns the bus name);
  /// gpsd and NMEA servers on loopback by the owner of the server's socket (root's gpsd, or
  /// gpsd.socket's systemd, own it; a user who took the port while gpsd was down does not);
  /// anything beyond loopback is another host; the listeners peer by peer; a UDP port is a
  /// datagram from anyone; a replay is a recording. Beacon and compass sources give no fixes.
  public var writerBasis: FixWriter.Basis {
    switch self {
    case .serial: return .deviceOwner
    case .modem, .bluez, .compass: return .fixed(.device)
    case .gpsd(let host, _, _), .nmeaTCP(let host, _):
      return SourceURI.isLoopback(host) ? .serverOwner : .fixed(.remoteHost)
    case .nmeaTCPListen, .nmeaUnixListen: return .eachPeer
    case .nmeaUDP: return .fixed(.datagram)
    case .replay, .beaconReplay: return .fixed(.recording)
    }
  }

  /// The writer of a fix from this source, given what the shell learned (`learned`: the
  /// device's, server's or peer's writer; nil when it learned nothing): the kind's own writer
  /// where the kind decides; what was learned where it must be learned, and `unknownUser`
  /// when it was not.
  public func writer(learned: FixWriter?) -> FixWriter {
    switch writerBasis {
    case .fixed(let writer): return writer
    case .deviceOwner, .serverOwner, .eachPeer: return learned ?? .unknownUser
    }
  }
}
