import CLocShim
import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// Connections to a listening source from another uid: a Python script run under setpriv(1)
/// as `uid` (its own group, or `groups`) opens `count` connections to a loopback TCP port or a
/// Unix socket, sends `text` on each, and says for each whether locd kept it (`kept`), closed
/// it at once (`closed`) or the socket file refused the connection (`denied`). It holds them
/// open until the test ends it, sending `text` again every half second on those kept, as a
/// receiver (or a determined squatter) would.
final class ForeignPeers {
  enum Target {
    case tcp(Int)
    case unix(String)
  }

  static let script = """
    import select, socket, sys
    kind, target, count, text = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    conns, states = [], []
    for _ in range(count):
        s = socket.socket(socket.AF_UNIX if kind == "unix" else socket.AF_INET)
        try:
            s.connect(target if kind == "unix" else ("127.0.0.1", int(target)))
        except PermissionError:
            states.append("denied")
            continue
        conns.append(s)
        try:
            if text:
                s.sendall(text.encode())
            r, _, _ = select.select([s], [], [], 1.0)
            states.append("closed" if r and s.recv(1) == b"" else "kept")
        except OSError:  # reset: closed with our lines unread
            states.append("closed")
    print(" ".join(states), flush=True)
    kept = [s for s, state in zip(conns, [x for x in states if x != "denied"]) if state == "kept"]
    while True:  # a receiver keeps sending: the same lines every half second
        r, _, _ = select.select([sys.stdin], [], [], 0.5)
        if r and not sys.stdin.read(1):
            break
        for s in list(kept):
            try:
                s.sendall(text.encode())
            except OSError:
                kept.remove(s)
    """

  private let child: Child
  /// The write end of the script's stdin; -1 once closed (closed once: a second close(2)
  /// could close a descriptor another test thread has just been given that number).
  private var input: Int32
  /// What happened to each connection, in order.
  let states: [String]

  init(uid: Int, groups: [Int] = [], target: Target, count: Int = 1, text: String = "") throws {
    signal(SIGPIPE, SIG_IGN)
    var inPipe: [Int32] = [0, 0]
    var outPipe: [Int32] = [0, 0]
    guard locshim_pipe2(&inPipe, O_CLOEXEC) == 0, locshim_pipe2(&outPipe, O_CLOEXEC) == 0 else {
      throw HarnessError("pipe")
    }
    let (kind, where_) =
      switch target {
      case .tcp(let port): ("tcp", String(port))
      case .unix(let path): ("unix", path)
      }
    let groupArgs =
      groups.isEmpty ? ["--init-groups"] : ["--groups=" + groups.map(String.init).joined(separator: ",")]
    child = try Child(
      "/usr/bin/setpriv",
      ["--reuid=\(uid)", "--regid=\(uid)"] + groupArgs + [
        "--pdeathsig", "KILL", "--", "/usr/bin/python3", "-c", Self.script, kind, where_, String(count), text,
      ], stdinFD: inPipe[0], stdoutFD: outPipe[1])
    close(inPipe[0])
    close(outPipe[1])
    input = inPipe[1]
    defer { close(outPipe[0]) }
    var line: [UInt8] = []
    var p = pollfd(fd: outPipe[0], events: Int16(POLLIN), revents: 0)
    while !line.contains(0x0A), poll(&p, 1, 20_000) == 1 {
      var byte: UInt8 = 0
      guard read(outPipe[0], &byte, 1) == 1 else { break }
      line.append(byte)
    }
    states = String(decoding: line, as: UTF8.self).split(separator: " ").map {
      $0.trimmingCharacters(in: .whitespacesAndNewlines)
    }
  }

  /// Closes the connections (the script ends).
  func end() {
    if input >= 0 { close(input) }
    input = -1
    child.wait(timeout: 10)
  }

  deinit {
    kill(child.pid, SIGKILL)
    if input >= 0 { close(input) }
    child.wait(timeout: 10)
  }
}

/// Issue 15: who may feed a listening source. Peers of other uids (setpriv) against the
/// real locd, over loopback TCP (uid from NETLINK_SOCK_DIAG) and a Unix socket (SO_PEERCRED).
@Suite(.serialized, .enabled(if: getuid() == 0, "setpriv to other uids needs root"))
struct ListenerPeerTests {
  static let nobody = 65534
  /// Debian's `daemon` user (uid 1, group 1) and `bin` (uid 2): unprivileged, not locd.
  static let daemonUser = 1
  static let binUser = 2

  static func trust(_ status: StatusView, _ index: Int = 0) -> SourceView.Trust? {
    guard case .known(let t)? = status.sources[index].trust else { return nil }
    return t
  }

  @Test func loopbackTCPPeersAreCheckedByUIDAgainstAllowUsers() throws {
    let port = freePort()
    let daemon = try LocdProcess(
      arguments: ["--source", "nmea+tcp-listen://:\(port)"], config: "[Sources]\nAllowUsers=daemon\n")
    var status = try daemon.waitForStatus { $0.sourceState() == .known(.connected) }
    #expect(Self.trust(status) == .allowedUsers)
    let human = try daemon.locctl(["status"])
    #expect(human.stdout.contains("trust allowed-users"), "\(human.stdout)")
    // Before: any local user's connection was served.
    let intruder = try ForeignPeers(
      uid: Self.nobody, target: .tcp(port), text: epochs(2, endingSecondsAgo: 6))
    #expect(intruder.states == ["closed"])
    var c = try daemon.waitForCounters { $0["refusedUsers"] == 1 }
    #expect(c["accepted"] == 0 && c["fixes"] == 0, "nothing of it was read")
    #expect(daemon.log.contains("(uid 65534): not in AllowUsers= or AllowGroups="), "\(daemon.log)")
    let allowed = try ForeignPeers(
      uid: Self.daemonUser, target: .tcp(port), text: epochs(2, endingSecondsAgo: 3))
    #expect(allowed.states == ["kept"])
    c = try daemon.waitForCounters { ($0["fixes"] ?? 0) >= 2 }
    #expect(c["accepted"] == 1 && c["peers"] == 1 && c["refusedUsers"] == 1)
    #expect(daemon.log.contains("(uid 1) connected"))
    // Root (this test) always may.
    let root = try connectTCP("127.0.0.1", port)
    defer { close(root) }
    try writeAll(root, epochs(1, endingSecondsAgo: 1, firstIndex: 2))
    c = try daemon.waitForCounters { $0["accepted"] == 2 && $0["peers"] == 2 }
    #expect(c["refusedUsers"] == 1)
    #expect(daemon.log.contains("(uid 0) connected"))
    // AllowGroups= by the account's groups (getgrouplist): `bin` is in group bin only.
    try "[Sources]\nAllowGroups=bin\n".write(
      toFile: daemon.directory + "/locd.conf", atomically: true, encoding: .utf8)
    #expect(try daemon.locctl(["reload"]).status == 0)
    _ = try daemon.waitForStatus {
      $0.sourceState() == .known(.connected) && $0.counters(source: 0)["accepted"] == 0
    }
    let member = try ForeignPeers(uid: Self.binUser, target: .tcp(port), text: epochs(1, endingSecondsAgo: 1))
    let former = try ForeignPeers(uid: Self.daemonUser, target: .tcp(port))
    #expect(member.states == ["kept"] && former.states == ["closed"])
    c = try daemon.waitForCounters { $0["accepted"] == 1 && $0["refusedUsers"] == 1 }
    // Without a list: any local user, trust local-users.
    try "".write(toFile: daemon.directory + "/locd.conf", atomically: true, encoding: .utf8)
    #expect(try daemon.locctl(["reload"]).status == 0)
    status = try daemon.waitForStatus {
      Self.trust($0) == .localUsers && $0.sourceState() == .known(.connected)
    }
    let anyone = try ForeignPeers(uid: Self.nobody, target: .tcp(port))
    #expect(anyone.states == ["kept"])
    try daemon.waitForCounters { $0["accepted"] == 1 && $0["refusedUsers"] == 0 }
    [intruder, allowed, member, former, anyone].forEach { $0.end() }
    #expect(daemon.stop() == 0)
  }

  @Test func unixSocketPeersAreCheckedWithSOPeerCred() throws {
    let daemon = try LocdProcess(wait: false, socketSource: true)
    let path = daemon.directory + "/nmea.sock"
    var status = try daemon.waitForStatus { $0.sourceState() == .known(.connected) }
    #expect(status.sources.first?.uri == "nmea+unix-listen://\(path)")
    // Without a list: a socket only root and locd can open, trust system.
    #expect(Self.trust(status) == .system)
    var st = stat()
    #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o600 && st.st_uid == getuid())
    let shut = try ForeignPeers(uid: Self.nobody, target: .unix(path))
    #expect(shut.states == ["denied"])
    // With AllowUsers=: anyone can open it, SO_PEERCRED decides.
    try "[Sources]\nAllowUsers=daemon\n".write(
      toFile: daemon.directory + "/locd.conf", atomically: true, encoding: .utf8)
    #expect(try daemon.locctl(["reload"]).status == 0)
    status = try daemon.waitForStatus {
      Self.trust($0) == .allowedUsers && $0.sourceState() == .known(.connected)
    }
    #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o666)
    let intruder = try ForeignPeers(
      uid: Self.nobody, target: .unix(path), text: epochs(2, endingSecondsAgo: 6))
    #expect(intruder.states == ["closed"])
    var c = try daemon.waitForCounters { $0["refusedUsers"] == 1 }
    #expect(c["fixes"] == 0)
    #expect(daemon.log.contains("refused uid 65534 pid "), "\(daemon.log)")
    let allowed = try ForeignPeers(
      uid: Self.daemonUser, target: .unix(path), text: epochs(2, endingSecondsAgo: 3))
    #expect(allowed.states == ["kept"])
    c = try daemon.waitForCounters { ($0["fixes"] ?? 0) >= 2 }
    #expect(c["accepted"] == 1 && c["peers"] == 1)
    // AllowGroups= by the process's groups (SO_PEERGROUPS): nobody with group dialout (20).
    try "[Sources]\nAllowGroups=dialout\n".write(
      toFile: daemon.directory + "/locd.conf", atomically: true, encoding: .utf8)
    #expect(try daemon.locctl(["reload"]).status == 0)
    _ = try daemon.waitForStatus {
      $0.sourceState() == .known(.connected) && $0.counters(source: 0)["accepted"] == 0
    }
    let member = try ForeignPeers(uid: Self.nobody, groups: [20], target: .unix(path))
    let plain = try ForeignPeers(uid: Self.nobody, target: .unix(path))
    #expect(member.states == ["kept"] && plain.states == ["closed"])
    try daemon.waitForCounters { $0["accepted"] == 1 && $0["refusedUsers"] == 1 }
    [shut, intruder, allowed, member, plain].forEach { $0.end() }
    #expect(daemon.stop() == 0)
    #expect(access(path, F_OK) != 0, "the socket file is removed at exit")
  }

  /// This machine's first IPv4 address outside loopback (getifaddrs(3)), if any.
  static let outsideAddress: String? = {
    var list: UnsafeMutablePointer<ifaddrs>? = nil
    guard getifaddrs(&list) == 0 else { return nil }
    defer { freeifaddrs(list) }
    var entry = list
    while let e = entry {
      defer { entry = e.pointee.ifa_next }
      guard let a = e.pointee.ifa_addr, a.pointee.sa_family == sa_family_t(AF_INET) else { continue }
      var host = [CChar](repeating: 0, count: 64)
      getnameinfo(a, socklen_t(MemoryLayout<sockaddr_in>.size), &host, 64, nil, 0, NI_NUMERICHOST)
      let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      if !text.hasPrefix("127.") { return text }
    }
    return nil
  }()

  @Test(.enabled(if: outsideAddress != nil, "no IPv4 address outside loopback"))
  func aPeerWhoseUIDCannotBeLearnedIsUntrusted() throws {
    // A connection to the machine's own LAN address: not loopback, so locd does not ask
    // NETLINK_SOCK_DIAG (a peer there may be another host), and the uid is unknown.
    let address = try #require(Self.outsideAddress)
    let port = freePort()
    let daemon = try LocdProcess(
      arguments: ["--source", "nmea+tcp-listen://0.0.0.0:\(port)"], config: "[Sources]\nAllowUsers=daemon\n")
    let status = try daemon.waitForStatus { $0.sourceState() == .known(.connected) }
    #expect(Self.trust(status) == .network, "bound beyond loopback")
    let peer = try connectTCP(address, port)
    defer { close(peer) }
    var p = pollfd(fd: peer, events: Int16(POLLIN), revents: 0)
    #expect(poll(&p, 1, 5000) == 1, "closed at once")
    let c = try daemon.waitForCounters { $0["refusedUsers"] == 1 }
    #expect(c["unknownUIDs"] == 1 && c["accepted"] == 0)
    #expect(daemon.log.contains("(uid unknown): its uid is unknown"), "\(daemon.log)")
    #expect(daemon.log.contains("not a loopback peer; treated as untrusted"))
    // Over loopback the same listener learns the uid: root is served.
    let local = try connectTCP("127.0.0.1", port)
    defer { close(local) }
    try daemon.waitForCounters { $0["accepted"] == 1 && $0["unknownUIDs"] == 1 }
    #expect(daemon.stop() == 0)
  }

  /// Before: four connections from one local user that kept sending locked the receiver
  /// out. The receiver here is an unprivileged user too (`daemon`), allowed like the others.
  @Test(arguments: ["tcp", "unix"])
  func anUnprivilegedUserTakingManySlotsNeverLocksTheReceiverOut(_ kind: String) throws {
    let port = freePort()
    let daemon = try LocdProcess(
      wait: false, socketSource: kind == "unix", tcpPort: port,
      config: "[Sources]\nAllowUsers=daemon bin nobody\n")
    let target: ForeignPeers.Target = kind == "unix" ? .unix(daemon.directory + "/nmea.sock") : .tcp(port)
    _ = try daemon.waitForStatus { $0.sourceState() == .known(.connected) }
    let receiver = try ForeignPeers(
      uid: Self.daemonUser, target: target, text: epochs(2, endingSecondsAgo: 8))
    #expect(receiver.states == ["kept"])
    try daemon.waitForCounters { ($0["fixes"] ?? 0) >= 2 }
    // nobody opens six, each sending NMEA: two are served, four refused.
    let squatter = try ForeignPeers(
      uid: Self.nobody, target: target, count: 6, text: epochs(1, endingSecondsAgo: 6, firstIndex: 2))
    #expect(squatter.states == ["kept", "kept", "closed", "closed", "closed", "closed"])
    var c = try daemon.waitForCounters { $0["refusedPeers"] == 4 }
    #expect(c["peers"] == 3)
    // A second user gets the last slot, and cannot take the receiver's.
    let second = try ForeignPeers(
      uid: Self.binUser, target: target, count: 3, text: epochs(1, endingSecondsAgo: 5, firstIndex: 3))
    #expect(second.states == ["kept", "closed", "closed"])
    c = try daemon.waitForCounters { $0["refusedPeers"] == 6 }
    #expect(c["peers"] == 4 && c["evictedPeers"] == 0)
    // Root comes: it replaces the newest unprivileged peer, never the receiver.
    let root = try ForeignPeers(uid: 0, target: target, text: epochs(1, endingSecondsAgo: 4, firstIndex: 4))
    #expect(root.states == ["kept"])
    c = try daemon.waitForCounters { $0["evictedPeers"] == 1 }
    #expect(c["peers"] == 4)
    let evictions = daemon.log.split(separator: "\n").filter { $0.contains("evicted for") }
    #expect(evictions.count == 1 && evictions[0].contains("root or locd's own user needed the slot"))
    #expect(evictions.allSatisfy { $0.contains("uid 2") }, "bin's, the newest: \(evictions)")
    // The squatter leaves: the receiver and root are the two left, so the receiver was
    // never closed.
    squatter.end()
    c = try daemon.waitForCounters { $0["peers"] == 2 }
    #expect(c["evictedPeers"] == 1)
    let receiverEnds = daemon.log.split(separator: "\n").filter {
      ($0.contains("peer uid 1 pid") || $0.contains("(uid 1) "))
        && ($0.hasSuffix(" closed") || $0.contains("evicted"))
    }
    #expect(receiverEnds.isEmpty, "\(receiverEnds)")
    #expect(Self.trust(try daemon.status()) == .allowedUsers)
    [receiver, second, root].forEach { $0.end() }
    #expect(daemon.stop() == 0)
  }
}

extension LocdProcess {
  /// locd with one listening source: a Unix socket `nmea.sock` in its directory
  /// (`socketSource`), else loopback TCP `tcpPort`; `config` written as locd.conf (always, so
  /// that a test can rewrite it and reload). Waits until it serves.
  convenience init(wait: Bool, socketSource: Bool, tcpPort: Int = 0, config: String = "") throws {
    let directory = LocdProcess.makeDirectory()
    let source =
      socketSource ? "nmea+unix-listen://\(directory)/nmea.sock" : "nmea+tcp-listen://127.0.0.1:\(tcpPort)"
    try self.init(arguments: ["--source", source], directory: directory, config: config)
  }
}
