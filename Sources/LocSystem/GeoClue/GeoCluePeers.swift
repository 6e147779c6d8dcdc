import CSystemd
import LocCore

/// One connection that talks to the GeoClue face (a unique name such as ":1.42"): its
/// credentials and the watch that tells when it leaves.
final class GeoCluePeer {
  /// The unique name.
  let name: String
  /// uid, pid and groups, once the bus told them.
  var credentials: Peer?
  /// Who waits for the credentials.
  var waiting: [(Result<Peer, BusProblem>) -> Void] = []
  /// The sd_bus_track watching the name (it empties when the connection ends).
  var track: OpaquePointer?
  /// Client objects this connection owns.
  var clients = 0
  /// Whether this connection is the agent of its user.
  var isAgent = false
  /// Called once when the connection has left the bus.
  let vanished: (String) -> Void

  init(name: String, vanished: @escaping (String) -> Void) {
    self.name = name
    self.vanished = vanished
  }

  deinit { if let track { sd_bus_track_unref(track) } }

  /// Whether nothing is kept for this connection any more (it may be forgotten).
  var isIdle: Bool { clients == 0 && !isAgent && waiting.isEmpty }
}

/// The peers of the GeoClue face by unique name. Credentials are asked once per connection
/// (org.freedesktop.DBus.GetConnectionCredentials, asynchronously: the loop never waits on
/// the bus) and the connection is watched with sd_bus_track(3) from before that question, so
/// a peer that leaves is noticed either way (the question fails, or the track empties).
final class GeoCluePeerDirectory {
  private(set) var peers: [String: GeoCluePeer] = [:]
  let vanished: (String) -> Void

  /// A directory; `vanished` is told the name of each connection that left.
  init(vanished: @escaping (String) -> Void) { self.vanished = vanished }

  /// The peer `name`, watched from now on.
  func peer(_ name: String, on bus: OpaquePointer) throws(Errno) -> GeoCluePeer {
    if let known = peers[name] { return known }
    let peer = GeoCluePeer(name: name, vanished: vanished)
    var track: OpaquePointer? = nil
    _ = try Syscall.systemd(
      "sd_bus_track_new",
      sd_bus_track_new(
        bus, &track,
        { _, userdata in
          guard let userdata else { return 0 }
          let peer = Unmanaged<GeoCluePeer>.fromOpaque(userdata).takeUnretainedValue()
          withExtendedLifetime(peer) { peer.vanished(peer.name) }
          return 0
        }, Unmanaged.passUnretained(peer).toOpaque()))
    peer.track = track
    _ = try Syscall.systemd("sd_bus_track_add_name \(name)", sd_bus_track_add_name(track, name))
    peers[name] = peer
    return peer
  }

  /// Calls `done` with the credentials of `name` (at once when known).
  func credentials(
    of name: String, on bus: OpaquePointer, _ done: @escaping (Result<Peer, BusProblem>) -> Void
  ) {
    let peer: GeoCluePeer
    do { peer = try self.peer(name, on: bus) } catch {
      done(.failure(BusProblem("cannot watch \(name): \(error)")))
      return
    }
    if let known = peer.credentials {
      done(.success(known))
      return
    }
    peer.waiting.append(done)
    guard peer.waiting.count == 1 else { return }  // already asked
    do {
      try BusCall.call(
        on: bus, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
        interface: "org.freedesktop.DBus", member: "GetConnectionCredentials", arguments: [.string(name)]
      ) { [weak peer] reply in
        guard let peer else { return }
        let result: Result<Peer, BusProblem>
        if let problem = reply.errorText {
          result = .failure(BusProblem("cannot learn who \(name) is: \(problem)"))
        } else {
          do { result = .success(try GeoCluePeerDirectory.parseCredentials(reply)) } catch {
            result = .failure(BusProblem("cannot read the credentials of \(name): \(error)"))
          }
        }
        if case .success(let credentials) = result { peer.credentials = credentials }
        let waiting = peer.waiting
        peer.waiting = []
        for w in waiting { w(result) }
      }
    } catch {
      peer.waiting = []
      done(.failure(BusProblem("cannot ask who \(name) is: \(error)")))
    }
  }

  /// Forgets `name` (it left, or nothing is kept for it).
  func forget(_ name: String) {
    peers[name] = nil
  }

  /// Forgets `name` if nothing is kept for it.
  func forgetIfIdle(_ name: String) {
    if let peer = peers[name], peer.isIdle { peers[name] = nil }
  }

  /// Forgets every peer (the connection is closing).
  func removeAll() { peers = [:] }

  /// The uid, pid and groups in a GetConnectionCredentials reply (`a{sv}` with UnixUserID,
  /// ProcessID and UnixGroupIDs; other keys skipped). The bus gives no primary group of its
  /// own: `gid` is the first of the groups (membership checks look at all of them).
  static func parseCredentials(_ reply: BusMessage) throws(Errno) -> Peer {
    let m = reply.raw
    var uid: UInt32? = nil
    var pid: UInt32 = 0
    var groups: [UInt32] = []
    _ = try Syscall.systemd("enter a{sv}", sd_bus_message_enter_container(m, BusMessage.Code.array, "{sv}"))
    while try Syscall.systemd(
      "enter {sv}", sd_bus_message_enter_container(m, BusMessage.Code.dictEntry, "sv")) > 0
    {
      let key = try reply.readText()
      switch key {
      case "UnixUserID": uid = try reply.readVariantUInt32()
      case "ProcessID": pid = try reply.readVariantUInt32()
      case "UnixGroupIDs":
        _ = try Syscall.systemd("enter v", sd_bus_message_enter_container(m, BusMessage.Code.variant, "au"))
        _ = try Syscall.systemd("enter au", sd_bus_message_enter_container(m, BusMessage.Code.array, "u"))
        var gid: UInt32 = 0
        while try Syscall.systemd("read u", sd_bus_message_read_basic(m, BusMessage.Code.uint32, &gid)) > 0 {
          groups.append(gid)
        }
        _ = try Syscall.systemd("exit au", sd_bus_message_exit_container(m))
        _ = try Syscall.systemd("exit v", sd_bus_message_exit_container(m))
      default:
        _ = try Syscall.systemd("skip v", sd_bus_message_skip(m, "v"))
      }
      _ = try Syscall.systemd("exit {sv}", sd_bus_message_exit_container(m))
    }
    _ = try Syscall.systemd("exit a{sv}", sd_bus_message_exit_container(m))
    guard let uid else {
      throw Errno(call: "GetConnectionCredentials: no UnixUserID", code: Errno.protocolError)
    }
    return Peer(pid: Int32(bitPattern: pid), uid: uid, gid: groups.first ?? uid, groups: groups)
  }
}
