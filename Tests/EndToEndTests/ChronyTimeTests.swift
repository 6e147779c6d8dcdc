import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// `[Time] ChronySocket=` against the real chronyd (Debian's chrony), started with a private
/// configuration and `-x`, so it never sets this machine's clock: a receiver stood in by a
/// peer of locd's nmea+unix-listen source sends RMC and GGA each second, dated 2 s ahead of
/// this machine's clock, and chronyd's refclock must become reachable and measure the offset
/// locd's samples carry.
@Suite(.serialized) struct ChronyTimeTests {
  /// A receiver 2 s ahead: after each second (plus 50 ms), that second + 2 s.
  static let feeder = """
    import functools, socket, sys, time
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    for _ in range(200):
        try:
            s.connect(sys.argv[1])
            break
        except OSError:
            time.sleep(0.05)
    def sentence(body):
        return "$%s*%02X\\r\\n" % (body, functools.reduce(lambda a, c: a ^ ord(c), body, 0))
    while True:
        time.sleep(1 - time.time() % 1 + 0.05)
        t = time.gmtime(int(time.time()) + 2)
        hms, dmy = time.strftime("%H%M%S", t) + ".00", time.strftime("%d%m%y", t)
        out = sentence("GPRMC,%s,A,5954.6000,N,01045.0000,E,0.0,0.0,%s,,,A" % (hms, dmy))
        out += sentence("GPGGA,%s,5954.6000,N,01045.0000,E,1,09,0.9,20.0,M,40.0,M,," % hms)
        s.sendall(out.encode())
    """

  /// The receiver stand-in (`feeder`) on locd's listening socket, stopped at the end.
  final class Feeder {
    let child: Child
    init(socket: String) throws {
      child = try Child("/usr/bin/python3", ["-c", ChronyTimeTests.feeder, socket])
    }
    deinit {
      kill(child.pid, SIGTERM)
      child.wait(timeout: 5)
    }
  }

  @Test func chronydTakesTheReceiversTimeAndMeasuresItsOffset() throws {
    let dir = LocdProcess.makeDirectory()
    let chronyd = try Chronyd(dir: dir)
    let daemon = try LocdProcess(
      arguments: ["--source", "nmea+unix-listen://\(dir)/nmea.sock", "--log-level", "info"],
      config: "[Acquisition]\nPolicy=continuous\n[Time]\nChronySocket=\(dir)/refclock.sock\n")
    let feeder = try Feeder(socket: dir + "/nmea.sock")
    // chronyd selects the refclock once a few samples are in (poll 0: one a second).
    var line: [String]? = nil
    let deadline = Date().addingTimeInterval(40)
    while Date() < deadline {
      line = try chronyd.gnss()
      if let l = line, l[1] == "*" || l[1] == "+", Int(l[5], radix: 8) ?? 0 >= 0o7 { break }
      usleep(250_000)
    }
    let gnss = try #require(line, "chronyc knows no GNSS source")
    #expect(gnss[1] == "*" || gnss[1] == "+", "not selected: \(gnss)")
    let reach = Int(gnss[5], radix: 8) ?? 0
    #expect(reach >= 0o7, "reach \(gnss[5])")
    // chronyd's measured offset is the local clock's against the source: the receiver is
    // 2 s ahead, less the time its sentences took to become a fix in locd (under a second).
    let measured = try #require(Double(gnss[8]))
    #expect(measured < -0.9 && measured > -2.05, "measured offset \(measured) s")
    let status = try daemon.status()
    let chrony = try #require(status.chrony)
    #expect(chrony.socket == dir + "/refclock.sock")
    #expect(chrony.sent >= 3 && chrony.failed == 0, "\(chrony.json.serialized)")
    let last = try #require(chrony.lastOffset)
    #expect(abs(last + measured) < 0.1, "locd sent \(last) s, chronyd measured \(measured) s")
    // The screen says it too.
    let text = try daemon.locctl(["status"])
    #expect(text.stdout.contains("Time:        to chrony at \(dir)/refclock.sock"), "\(text.stdout)")
    _ = (chronyd, feeder)
  }

  /// No chronyd: the samples fail, status says why and since when, the log says it once, and
  /// locd goes on serving; a replay (recorded times) sends none.
  @Test func aMissingChronydIsCountedAndSaidOnce() throws {
    let dir = LocdProcess.makeDirectory()
    let daemon = try LocdProcess(
      arguments: ["--source", "nmea+unix-listen://\(dir)/nmea.sock", "--log-level", "info"],
      config: "[Acquisition]\nPolicy=continuous\n[Time]\nChronySocket=\(dir)/refclock.sock\n")
    let feeder = try Feeder(socket: dir + "/nmea.sock")
    let status = try daemon.waitForStatus(timeout: 20) { ($0.chrony?.failed ?? 0) >= 3 }
    let chrony = try #require(status.chrony)
    #expect(chrony.sent == 0)
    #expect(chrony.lastError?.contains("No such file or directory") == true, "\(chrony.json.serialized)")
    #expect(chrony.failingSince != nil)
    let said =
      daemon.log.components(separatedBy: "chrony: cannot send time samples to \(dir)/refclock.sock").count - 1
    #expect(said == 1, "\(daemon.log)")
    let text = try daemon.locctl(["status"])
    #expect(text.stdout.contains("failing since"), "\(text.stdout)")

    let replay = try LocdProcess(
      arguments: ["--source", "replay:\(Binaries.fixture("nmea/bu353s4.log").path)?speed=max"],
      config: "[Acquisition]\nPolicy=continuous\n[Time]\nChronySocket=\(dir)/refclock.sock\n")
    let done = try replay.waitForStatus(timeout: 20) { $0.sourceState() == .known(.finished) }
    #expect(done.chrony?.sent == 0 && done.chrony?.failed == 0, "\(done.chrony?.json.serialized ?? "")")
    _ = feeder
  }
}
