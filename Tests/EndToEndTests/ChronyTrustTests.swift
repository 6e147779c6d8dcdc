import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// Issue 40, items 1 and 5: whose time reaches chrony (`[Time] ChronySocket=`), against the
/// real chronyd (`chronyd -x`, a private configuration: it never sets this machine's clock)
/// with its own record of every sample it took (`log refclocks`: refclocks.log, whose raw
/// offset column is the offset locd's datagram carried). The receivers are Python feeders:
/// one on a pseudo-terminal that root opened, standing in for a serial receiver (as
/// SerialSourceTests' pty does), and one on a listening socket, run as another uid (setpriv).
@Suite(.serialized, .enabled(if: getuid() == 0, "setpriv to other uids and chronyd need root"))
struct ChronyTrustTests {
  static let nobody = 65534

  /// A receiver: after each second (plus 50 ms), that second + OFFSET as RMC and GGA. Mode
  /// `pty LINK OFFSET`: opens a pseudo-terminal and points LINK at its slave (a serial
  /// receiver); `tcp PORT OFFSET` and `unix PATH OFFSET`: connects to a listening source.
  static let feeder = """
    import functools, os, pty, socket, sys, time
    mode, target, offset = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if mode == "pty":
        master, slave = pty.openpty()
        os.set_blocking(master, False)
        os.symlink(os.ttyname(slave), target + ".new")
        os.rename(target + ".new", target)
        def send(data):
            try:
                while True:
                    os.read(master, 4096)  # the echo before locd sets raw mode
            except OSError:
                pass
            try:
                os.write(master, data)
            except BlockingIOError:
                pass
    else:
        s = socket.socket(socket.AF_UNIX if mode == "unix" else socket.AF_INET)
        for _ in range(200):
            try:
                s.connect(target if mode == "unix" else ("127.0.0.1", int(target)))
                break
            except OSError:
                time.sleep(0.05)
        send = s.sendall
    def sentence(body):
        return "$%s*%02X\\r\\n" % (body, functools.reduce(lambda a, c: a ^ ord(c), body, 0))
    while True:
        time.sleep(1 - time.time() % 1 + 0.05)
        t = time.gmtime(int(time.time()) + offset)
        hms, dmy = time.strftime("%H%M%S", t) + ".00", time.strftime("%d%m%y", t)
        out = sentence("GPRMC,%s,A,5954.6000,N,01045.0000,E,0.0,0.0,%s,,,A" % (hms, dmy))
        out += sentence("GPGGA,%s,5954.6000,N,01045.0000,E,1,09,0.9,20.0,M,40.0,M,," % hms)
        send(out.encode())
    """

  /// A feeder (`feeder`) running as `uid` (root: nil), stopped at the end.
  final class Feeder {
    let child: Child
    init(_ mode: String, _ target: String, offset: Int, uid: Int? = nil) throws {
      let who = uid.map { ["--reuid=\($0)", "--regid=\($0)", "--clear-groups"] } ?? []
      child = try Child(
        "/usr/bin/setpriv",
        who + ["--pdeathsig", "KILL", "--", "/usr/bin/python3", "-c", ChronyTrustTests.feeder, mode, target]
          + [String(offset)])
    }
    deinit {
      kill(child.pid, SIGTERM)
      child.wait(timeout: 5)
    }
  }

  /// Waits until `condition` holds (polling every 250 ms), up to `seconds`.
  static func wait(_ seconds: Double, _ what: String, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try !condition() {
      guard Date() < deadline else { throw HarnessError("timed out waiting for \(what)") }
      usleep(250_000)
    }
  }

  /// Finding 1: a loopback TCP listener (open to every local user: no AllowUsers=) fed by uid
  /// 65534 with fixes dated `offset` ahead, beside a serial receiver (a pty root opened) on
  /// this machine's time. chronyd must take the receiver's samples and none of the
  /// listener's: the listener's would carry `offset` (less the under-a-second delay), the
  /// receiver's under 2 s.
  @Test(arguments: [3600, 86_400])
  func anotherUsersListenerNeverReachesChronyBesideASerialReceiver(offset: Int) throws {
    let dir = LocdProcess.makeDirectory()
    let chronyd = try Chronyd(dir: dir)
    let port = freePort()
    let daemon = try LocdProcess(
      arguments: [
        "--source", "serial:\(dir)/gps0?baud=9600", "--source", "nmea+tcp-listen://127.0.0.1:\(port)",
        "--log-level", "info",
      ],
      config: "[Acquisition]\nPolicy=continuous\n[Time]\nChronySocket=\(dir)/refclock.sock\n")
    let receiver = try Feeder("pty", dir + "/gps0", offset: 0)
    let attacker = try Feeder("tcp", String(port), offset: offset, uid: Self.nobody)
    // Both feeds reach locd (its counters), and chronyd has taken 8 of the receiver's samples.
    try Self.wait(60, "8 fixes of each source and 8 samples in chronyd") {
      let status = try daemon.status()
      return status.counters(source: 0)["fixes"] ?? 0 >= 8 && status.counters(source: 1)["fixes"] ?? 0 >= 8
        && chronyd.samples.filter { abs($0) < 2 }.count >= 8
    }
    let samples = chronyd.samples
    let forged = samples.filter { abs($0 - Double(offset)) < 2 }
    #expect(forged.isEmpty, "\(forged.count) of \(samples.count) samples in chronyd at +\(offset) s")
    #expect(samples.allSatisfy { abs($0) < 2 }, "\(samples)")
    #expect(!chronyd.log.contains("System clock wrong"), "\(chronyd.log)")
    // chronyd still hears the receiver (its own view), and locd says what it withheld and why.
    let gnss = try #require(try chronyd.gnss())
    #expect(Int(gnss[5], radix: 8) ?? 0 > 0, "chronyd's reach of GNSS: \(gnss)")
    let chrony = try #require(try daemon.status().chrony)
    #expect(chrony.sent >= 8 && chrony.untrusted >= 8, "\(chrony.json.serialized)")
    let last = try #require(chrony.lastUntrusted)
    #expect(last.source == "nmea+tcp-listen://127.0.0.1:\(port)")
    #expect(last.writer == .known(.localUser) && last.uid == Self.nobody)
    #expect(abs(last.offset - Double(offset)) < 2)
    let text = try daemon.locctl(["status"]).stdout
    #expect(
      text.contains("from sources that may not set the clock (last from nmea+tcp-listen://127.0.0.1:\(port)")
        && text.contains("a local user (uid 65534)"), "\(text)")
    let said = daemon.log.components(separatedBy: "chrony: the time of nmea+tcp-listen").count - 1
    #expect(said == 1, "said once: \(daemon.log)")
    _ = (receiver, attacker)
  }

  /// Finding 1, alone: against chronyd with only the listener another uid feeds +1 h,
  /// chronyd took every sample, selected GNSS and said the clock was wrong by 3600 s. Now it
  /// takes none.
  @Test func anotherUsersListenerAloneGivesChronyNothing() throws {
    let dir = LocdProcess.makeDirectory()
    let chronyd = try Chronyd(dir: dir)
    let port = freePort()
    let daemon = try LocdProcess(
      arguments: ["--source", "nmea+tcp-listen://127.0.0.1:\(port)", "--log-level", "info"],
      config: "[Acquisition]\nPolicy=continuous\n[Time]\nChronySocket=\(dir)/refclock.sock\n")
    let attacker = try Feeder("tcp", String(port), offset: 3600, uid: Self.nobody)
    // 8 of its samples judged: a sample is a cycle whose start locd knows, from the fourth
    // cycle on (decision 0064), so the counter, not the fixes, says when 8 were.
    try Self.wait(40, "8 samples of the listener withheld") {
      try daemon.status().chrony?.untrusted ?? 0 >= 8
    }
    let samples = chronyd.samples
    #expect(samples.isEmpty, "\(samples.filter { abs($0 - 3600) < 2 }.count) of \(samples.count) at +3600 s")
    #expect(!chronyd.log.contains("Selected source GNSS"), "\(chronyd.log)")
    #expect(!chronyd.log.contains("System clock wrong"), "\(chronyd.log)")
    let chrony = try #require(try daemon.status().chrony)
    #expect(chrony.sent == 0 && chrony.untrusted >= 8, "\(chrony.json.serialized)")
    _ = attacker
  }

  /// Finding 5: `ChronySocket=` names a symbolic link, which uid 65534 made in a directory
  /// everyone may write (as /tmp), to chronyd's socket in a directory only root may enter.
  /// locd must refuse it, and chronyd take nothing, though a trusted receiver (a root peer
  /// of a Unix listener only root can reach) delivers fixes.
  @Test func aSymbolicLinkToAnotherSocketIsRefused() throws {
    let dir = LocdProcess.makeDirectory()
    let chronyd = try Chronyd(dir: dir)
    let open = LocdProcess.makeDirectory()
    chmod(open, 0o1777)
    let link = open + "/refclock.sock"
    let ln = try run(
      URL(fileURLWithPath: "/usr/bin/setpriv"),
      [
        "--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups", "/bin/ln", "-s",
        dir + "/refclock.sock", link,
      ])
    try #require(ln.status == 0, "ln -s as nobody: \(ln.stderr)")
    let daemon = try LocdProcess(
      arguments: ["--source", "nmea+unix-listen://\(dir)/nmea.sock", "--log-level", "info"],
      config: "[Acquisition]\nPolicy=continuous\n[Time]\nChronySocket=\(link)\n")
    let receiver = try Feeder("unix", dir + "/nmea.sock", offset: 0)
    // 8 of its samples refused at the link (the counter: a sample is a cycle whose start
    // locd knows, from the fourth cycle on; decision 0064).
    try Self.wait(40, "8 samples of the receiver refused") {
      try daemon.status().chrony?.socketRefused ?? 0 >= 8
    }
    let samples = chronyd.samples
    #expect(samples.isEmpty, "\(samples.count) samples delivered through the link")
    let gnss = try #require(try chronyd.gnss())
    #expect(gnss[5] == "0", "chronyd's reach of GNSS: \(gnss)")
    // locd says why, and counts what it did not send.
    let chrony = try #require(try daemon.status().chrony)
    #expect(chrony.sent == 0 && chrony.socketRefused >= 8, "\(chrony.json.serialized)")
    let refusal = try #require(chrony.refusal)
    #expect(refusal.reason == .known(.symbolicLink))
    #expect(refusal.message.contains("through a symbolic link (\(link))"), "\(refusal.message)")
    let text = try daemon.locctl(["status"]).stdout
    #expect(text.contains("refused since") && text.contains("symbolic link"), "\(text)")
    let said = daemon.log.components(separatedBy: "chrony: refusing ChronySocket=\(link)").count - 1
    #expect(said == 1, "said once: \(daemon.log)")
    _ = receiver
  }

  /// The kernel's bound on the clock's error (adjtimex(2) ADJ_MAXERROR, through Python's
  /// ctypes: Swift's Glibc module does not show adjtimex) set to `microseconds`, which makes
  /// the clock synchronised as systemd's timedated and locd judge it (under 16 s); put back to
  /// 16 s (unsynchronised, where the kernel itself stops) at the end. The clock itself and
  /// STA_UNSYNC are not touched, so the kernel does not write the RTC.
  final class KernelErrorBound {
    static let script = """
      import ctypes, struct, sys
      buf = ctypes.create_string_buffer(512)
      # struct timex (sys/timex.h) on LP64: int modes at 0, long maxerror at 24.
      struct.pack_into("i", buf, 0, 0x0004)  # ADJ_MAXERROR
      struct.pack_into("l", buf, 24, int(sys.argv[1]))
      libc = ctypes.CDLL(None, use_errno=True)
      sys.exit(0 if libc.adjtimex(buf) >= 0 else ctypes.get_errno())
      """
    init(microseconds: Int) throws {
      try Self.set(microseconds)
    }
    static func set(_ microseconds: Int) throws {
      let r = try run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, String(microseconds)])
      guard r.status == 0 else { throw HarnessError("adjtimex ADJ_MAXERROR: errno \(r.status) \(r.stderr)") }
    }
    deinit { try? Self.set(16_000_000) }
  }

  /// The agreement rule: a trusted receiver (a root peer) an hour ahead of a clock the kernel
  /// says is synchronised is withheld, and status says by how much; with
  /// `MaxDisagreement=off` (a machine with no other clock) its samples go.
  @Test func aTrustedReceiverFarFromTheSynchronisedClockIsWithheldUnlessTheCheckIsOff() throws {
    let dir = LocdProcess.makeDirectory()
    let chronyd = try Chronyd(dir: dir)
    let bound = try KernelErrorBound(microseconds: 500_000)
    do {
      let daemon = try LocdProcess(
        arguments: ["--source", "nmea+unix-listen://\(dir)/nmea.sock", "--log-level", "info"],
        config: "[Acquisition]\nPolicy=continuous\n[Time]\nChronySocket=\(dir)/refclock.sock\n")
      let receiver = try Feeder("unix", dir + "/nmea.sock", offset: 3600)
      let status = try daemon.waitForStatus(timeout: 40) { ($0.chrony?.disagreeing ?? 0) >= 5 }
      let chrony = try #require(status.chrony)
      #expect(chrony.sent == 0 && chrony.untrusted == 0, "\(chrony.json.serialized)")
      #expect(chrony.systemClock == .known(.synchronised) && chrony.maxDisagreement == .seconds(60))
      let last = try #require(chrony.lastDisagreement)
      #expect(last.writer == .known(.privileged))
      #expect(last.offset > 3598 && last.offset < 3600.1, "\(last.offset)")
      #expect(chronyd.samples.isEmpty, "\(chronyd.samples)")
      let text = try daemon.locctl(["status"]).stdout
      // "N off the synchronised clock (last +3599.950 s from it, more than 1min)".
      #expect(
        (text.contains("off the synchronised clock (last +3599.")
          || text.contains("off the synchronised clock (last +3600."))
          && text.contains("s from it, more than 1min)"), "\(text)")
      _ = receiver
    }
    let daemon = try LocdProcess(
      arguments: ["--source", "nmea+unix-listen://\(dir)/nmea2.sock", "--log-level", "info"],
      config:
        "[Acquisition]\nPolicy=continuous\n[Time]\nChronySocket=\(dir)/refclock.sock\nMaxDisagreement=off\n")
    let receiver = try Feeder("unix", dir + "/nmea2.sock", offset: 3600)
    try Self.wait(40, "3 samples at +3600 s in chronyd") {
      chronyd.samples.filter { abs($0 - 3600) < 2 }.count >= 3
    }
    let chrony = try #require(try daemon.status().chrony)
    #expect(
      chrony.sent >= 3 && chrony.disagreeing == 0 && chrony.maxDisagreement == nil,
      "\(chrony.json.serialized)")
    _ = (receiver, bound)
  }
}
