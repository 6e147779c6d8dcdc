import CSystemd
import LocCore

/// A request for a well-known name on its way (sd_bus_request_name_async(3)): `done` gets the
/// bus's reply to RequestName (nil if none came), as long as the request lives.
final class BusNameRequest {
  let done: (BusMessage?) -> Void
  fileprivate var slot: BusSlot?
  fileprivate init(_ done: @escaping (BusMessage?) -> Void) { self.done = done }
}

/// A watch on one connection of the bus by its unique name (sd_bus_track(3)): `vanished` is
/// called once the connection has left the bus, while the watch lives.
final class BusPeerTrack {
  let vanished: () -> Void
  fileprivate var raw: OpaquePointer?
  fileprivate init(_ vanished: @escaping () -> Void) { self.vanished = vanished }
  deinit { if let raw { sd_bus_track_unref(raw) } }
}

/// Names on the bus: owning one, watching who owns one, watching a peer's connection, and
/// asking the bus about a connection (org.freedesktop.DBus, the D-Bus specification's
/// "Message Bus Messages").
extension BusConnection {
  /// Asks for `name` without queueing (flags 0; sd_bus_request_name_async(3)); the RequestName
  /// reply goes to `done` (its `u`: 1 primary owner, 3 exists, 4 already owner).
  func requestName(_ name: String, done: @escaping (BusMessage?) -> Void) throws(Errno) -> BusNameRequest {
    let bus = try handle()
    let request = BusNameRequest(done)
    var slot: OpaquePointer? = nil
    _ = try Syscall.systemd(
      "sd_bus_request_name_async",
      sd_bus_request_name_async(
        bus, &slot, name, 0,
        { reply, userdata, _ in
          let request = Unmanaged<BusNameRequest>.fromOpaque(userdata!).takeUnretainedValue()
          withExtendedLifetime(request) { request.done(reply.map { BusMessage(retaining: $0) }) }
          return 0
        }, Unmanaged.passUnretained(request).toOpaque()))
    request.slot = BusSlot(adopting: slot)
    return request
  }

  /// Watches the connection `name` (a unique name) from now on (sd_bus_track_new(3),
  /// sd_bus_track_add_name(3)): `vanished` is called when it leaves the bus.
  func track(_ name: String, vanished: @escaping () -> Void) throws(Errno) -> BusPeerTrack {
    let bus = try handle()
    let track = BusPeerTrack(vanished)
    var raw: OpaquePointer? = nil
    _ = try Syscall.systemd(
      "sd_bus_track_new",
      sd_bus_track_new(
        bus, &raw,
        { _, userdata in
          guard let userdata else { return 0 }
          let track = Unmanaged<BusPeerTrack>.fromOpaque(userdata).takeUnretainedValue()
          withExtendedLifetime(track) { track.vanished() }
          return 0
        }, Unmanaged.passUnretained(track).toOpaque()))
    track.raw = raw
    _ = try Syscall.systemd("sd_bus_track_add_name \(name)", sd_bus_track_add_name(raw, name))
    return track
  }

  /// Watches NameOwnerChanged for `name`: `changed` gets the new owner's unique name, empty
  /// when nobody owns it any more. The match lasts as long as the returned `BusMatch`.
  func watchOwner(of name: String, changed: @escaping (String) -> Void) throws(Errno) -> BusMatch {
    try match(
      "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
        + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(name)'"
    ) { m in
      // NameOwnerChanged(name, old owner, new owner).
      guard let watched = try? m.readText(), watched == name, (try? m.readText()) != nil,
        let new = try? m.readText()
      else { return }
      changed(new)
    }
  }

  /// Asks who owns `name` (org.freedesktop.DBus.GetNameOwner): `done` gets its unique name
  /// (empty if the reply could not be read), or the bus's error (NameHasNoOwner when nobody
  /// does).
  func askOwner(of name: String, done: @escaping (Result<String, BusError>) -> Void) throws(Errno) {
    try call(
      destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      member: "GetNameOwner", arguments: [.string(name)]
    ) { reply in
      if let error = reply.error {
        done(.failure(error))
      } else {
        done(.success((try? reply.readText()) ?? ""))
      }
    }
  }

  /// Asks the bus who the connection `name` is (org.freedesktop.DBus.GetConnectionCredentials);
  /// `done` gets the reply, to be read with `readConnectionCredentials`.
  func askCredentials(of name: String, done: @escaping (BusMessage) -> Void) throws(Errno) {
    try call(
      destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      member: "GetConnectionCredentials", arguments: [.string(name)], done: done)
  }
}

extension BusMessage {
  /// The uid, pid and groups in a GetConnectionCredentials reply (`a{sv}` with UnixUserID,
  /// ProcessID and UnixGroupIDs; other keys skipped). The bus gives no primary group of its
  /// own: `gid` is the first of the groups (membership checks look at all of them).
  func readConnectionCredentials() throws(Errno) -> Peer {
    var uid: UInt32? = nil
    var pid: UInt32 = 0
    var groups: [UInt32] = []
    try enter(Code.array, "{sv}", "enter a{sv}")
    while try enter(Code.dictEntry, "sv", "enter {sv}") {
      let key = try readText()
      switch key {
      case "UnixUserID": uid = try readVariantUInt32()
      case "ProcessID": pid = try readVariantUInt32()
      case "UnixGroupIDs":
        try enter(Code.variant, "au", "enter v")
        try enter(Code.array, "u", "enter au")
        while let gid = try readNextUInt32("read u") { groups.append(gid) }
        try exit("exit au")
        try exit("exit v")
      default:
        try skip("v", "skip v")
      }
      try exit("exit {sv}")
    }
    try exit("exit a{sv}")
    guard let uid else {
      throw Errno(call: "GetConnectionCredentials: no UnixUserID", code: Errno.protocolError)
    }
    return Peer(pid: Int32(bitPattern: pid), uid: uid, gid: groups.first ?? uid, groups: groups)
  }
}
