import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// Issue 40, finding 3: the gpsd face and the NMEA output's TCP port kept no slot for root.
/// Eight users with 16 connections each took all 128 of the face's slots and root's
/// `gpspipe -w` was refused ("too many gpsd clients"); four users × 16 took the port's 64 and
/// root's reader got nothing. Now the last `ReservedAdminClients=` slots of each are only for
/// root, locd's uid and AdminGroup= (GPSD.md, NMEAOUT.md, "Limits"). The users are uids that
/// exist nowhere (no group, so no access: each connection is an app), each one program that
/// opens its connections one after the other, run with setpriv as the other tests do.
@Suite(.serialized) struct GpsdSlotsTests {
  static let canSwitchUser = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
  static let hasGpspipe = FileManager.default.isExecutableFile(atPath: "/usr/bin/gpspipe")
  /// The users of the crowd: uids no account has.
  static let crowd: [UInt32] = (1...8).map { 47_000 + $0 }

  /// One user's connections: `count` to 127.0.0.1:`port`, one after the other. `gpsd`: each
  /// reads its first line (VERSION when it got a slot, an ERROR when refused, which closes
  /// it); `hold`: nothing is read (the NMEA port tells a refused client nothing). Prints
  /// `done held=N refused=M` and the first refusal, then keeps the held ones open.
  static let flood = """
    import socket, sys, time
    port, count, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    held, refusals = [], []
    for i in range(count):
        s = socket.create_connection(("127.0.0.1", port))
        if mode == "gpsd":
            s.settimeout(30)
            f = s.makefile("rb")
            line = f.readline().decode().strip()
            if '"class":"VERSION"' in line:
                held.append((s, f))
            else:
                refusals.append(line)
                s.close()
        else:
            held.append(s)
    print("done held=%d refused=%d" % (len(held), len(refusals)), flush=True)
    for line in refusals[:1]:
        print(line, flush=True)
    while True:
        time.sleep(3600)
    """

  /// `count` connections of `uid` to `port`, once all were made.
  static func connections(
    _ count: Int, of uid: UInt32, port: Int, mode: String, in dir: String
  ) throws -> GpsdFaceRig.Capture {
    let capture = try GpsdFaceRig.Capture(
      "/usr/bin/setpriv",
      [
        "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--", "/usr/bin/python3", "-c", flood,
        "\(port)",
        "\(count)", mode,
      ], path: dir + "/flood-\(uid).out")
    try capture.wait { $0.contains { $0.hasPrefix("done ") } }
    return capture
  }

  static func counters(_ list: [Counter]?) -> [String: Int] {
    Dictionary(uniqueKeysWithValues: (list ?? []).map { ($0.name, $0.value) })
  }

  /// The defaults: MaxClients=128, ReservedAdminClients=16, MaxClientsPerUser=16. The first
  /// user tries 20 and holds 16 (its share; 4 refused); the next six hold 16 each, 112 in all,
  /// which is every slot but the 16 kept; the eighth is refused all 16, told why. Root's real
  /// gpspipe still connects and gets fixes.
  @Test(.enabled(if: canSwitchUser && hasGpspipe, "needs root, setpriv and gpspipe (gpsd-clients)"))
  func aCrowdOfUsersCannotTakeRootsGpsdSlot() throws {
    let rig = try GpsdFaceRig()
    let dir = rig.daemon.directory
    var floods: [GpsdFaceRig.Capture] = []
    defer { for f in floods { f.stop() } }
    for (i, uid) in Self.crowd.enumerated() {
      floods.append(try Self.connections(i == 0 ? 20 : 16, of: uid, port: rig.port, mode: "gpsd", in: dir))
    }
    #expect(floods[0].lines.first == "done held=16 refused=4", "\(floods[0].lines)")
    #expect(floods[0].lines.dropFirst().first?.contains("uid \(Self.crowd[0]) has 16 gpsd clients") == true)
    for f in floods[1..<7] { #expect(f.lines.first == "done held=16 refused=0", "\(f.lines)") }
    #expect(floods[7].lines.first == "done held=0 refused=16", "\(floods[7].lines)")
    let told = floods[7].lines.dropFirst().first ?? ""
    #expect(told.contains("\"class\":\"ERROR\"") && told.contains("kept for administrators"), "\(told)")
    let s = try rig.daemon.status()
    #expect(s.gpsd?.clients == 112)
    let c = Self.counters(s.gpsd?.counters)
    #expect(c["refusedPerUser"] == 4 && c["refusedReserved"] == 16 && c["refusedFull"] == 0, "\(c)")

    // Root: its gpspipe gets a slot and the fixes.
    let root = try rig.gpspipe(["-w"], name: "root")
    try root.wait { lines in lines.contains { $0.contains("\"class\":\"TPV\"") && $0.contains("\"lat\":") } }
    root.stop()
    #expect(root.reports("ERROR").isEmpty, "\(root.lines.prefix(5))")
    #expect(try rig.daemon.status().gpsd?.clients == 112, "root's slot is given back")
  }

  /// The NMEA output's port: MaxClients=64, ReservedAdminClients=8, MaxClientsPerUser=16. Three
  /// users hold 16 each, the fourth only the 8 left before the reserve; root's reader gets
  /// the receiver's sentences.
  @Test(.enabled(if: canSwitchUser, "needs root and setpriv"))
  func aCrowdOfUsersCannotTakeRootsNMEASlot() throws {
    let dir = LocdProcess.makeDirectory()
    let port = freePort()
    let (daemon, log) = try GpsdFaceRig.nmeaOutReplay(dir: dir, port: port)
    var floods: [GpsdFaceRig.Capture] = []
    defer { for f in floods { f.stop() } }
    for uid in Self.crowd.prefix(4) {
      floods.append(try Self.connections(16, of: uid, port: port, mode: "hold", in: dir))
    }
    // The port tells a refused client nothing: its counters say who was served.
    let s = try daemon.waitForStatus { Self.counters($0.nmeaOut?.counters)["tcpAccepted"] == 64 }
    let c = Self.counters(s.nmeaOut?.counters)
    #expect(c["tcpClients"] == 56 && c["tcpRefusedReserved"] == 8 && c["tcpRefused"] == 8, "\(c)")

    let root = try NMEAOutTests.tcpReader(port: port, uid: nil, path: dir + "/root.out")
    try root.wait { lines in lines.filter { $0.hasPrefix("$GPGGA") }.count >= 2 }
    root.stop()
    let logLines = Set(
      try String(contentsOfFile: log, encoding: .isoLatin1).split(whereSeparator: \.isNewline).map(
        String.init))
    let sentences = root.lines.filter { $0.hasPrefix("$") }.dropFirst()
    #expect(sentences.allSatisfy(logLines.contains), "the receiver's own sentences")
    #expect(Self.counters(try daemon.status().nmeaOut?.counters)["tcpRefused"] == 8)
  }
}
