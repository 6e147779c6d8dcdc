import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// The default source (no `Source=`: gpsd on this machine) on a machine without gpsd, and then
/// with a real gpsd that starts later, as gpsd.socket or gpsd.service would: locd waits rather
/// than fails, and takes gpsd's fixes once it comes (decision 0063). Run in a private network
/// and /run (`PrivateHost`), where 127.0.0.1:2947 and /run/gpsd.sock are the test's.
@Suite struct DefaultSourceDaemonTests {
  static let gpsd = "/usr/sbin/gpsd"

  @Test(
    .enabled(if: getuid() == 0, "needs root: a private network and mount namespace"),
    .enabled(if: PrivateHost.installed, "needs unshare, nsenter, ip and mount"),
    .enabled(if: FileManager.default.isExecutableFile(atPath: gpsd), "needs gpsd"))
  func withoutGpsdTheDefaultSourceWaitsThenTakesGpsdWhenItStarts() throws {
    let dir = LocdProcess.makeDirectory()
    let notify = try NotifySocket(directory: dir)
    // No Source= and no --source: the default source, at its own address.
    let daemon = try LocdProcess(
      environment: ["NOTIFY_SOCKET": notify.path], directory: dir, launcher: PrivateHost.launcher)
    // A watch keeps the receiver wanted (its location subscription), so locd keeps trying.
    let watch = try FixWatcher(daemon, json: false)

    // Nothing listens on 127.0.0.1:2947 there: waiting, which is no fault.
    let waiting = try daemon.waitForStatus { $0.sources.first?.state == .known(.waiting) }
    let source = try #require(waiting.sources.first)
    #expect(source.uri == "gpsd://127.0.0.1:2947")
    #expect(source.fault == nil)
    #expect(source.lastError == nil)
    #expect(source.retryAt != nil, "the next attempt is planned while fixes are wanted")
    let text = try daemon.locctl(["status"]).stdout
    #expect(
      text.contains(
        "gpsd://127.0.0.1:2947  waiting: no gpsd on this machine yet (locd connects when it starts)"),
      "\(text)")
    #expect(!text.contains("failing") && !text.contains("refused"), "\(text)")
    let lines = notify.receive(until: { $0.contains("no gpsd on this machine yet") })
    #expect(
      lines.contains {
        $0.contains("STATUS=no position")
          && $0.contains(
            "no gpsd on this machine yet (locd connects to gpsd://127.0.0.1:2947 when it starts)")
      }, "\(lines)")
    #expect(!lines.contains { $0.contains("refused") || $0.contains("reconnecting") }, "\(lines)")
    #expect(!daemon.log.contains("<4>"), "no warning for a gpsd that is not installed: \(daemon.log)")

    // gpsd starts: the real gpsd, reading a pty fed one cycle at a time, creating its control
    // socket /run/gpsd.sock as gpsd.socket and Debian's gpsd.service do (-F), read-only (-b).
    let receiver = try FakeSerialDevice()
    let gpsdLog = open(dir + "/gpsd.log", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    let (program, arguments) = PrivateHost.enter(
      daemon.pid, [Self.gpsd, "-N", "-n", "-b", "-F", "/run/gpsd.sock", "-S", "2947", receiver.path])
    let gpsd = try Child(program, arguments, stderrFD: gpsdLog)
    close(gpsdLog)
    defer {
      if gpsd.isRunning { kill(gpsd.pid, SIGKILL) }
      gpsd.wait(timeout: 5)
    }
    var index = 0
    var fixed: StatusView?
    let deadline = Date().addingTimeInterval(30)
    while fixed == nil, Date() < deadline {
      try receiver.write(epoch(at: Date(), index: index))
      index += 1
      let s = try daemon.status()
      if s.sources.first?.state == .known(.connected), s.position.tier == .fix { fixed = s }
      usleep(200_000)
    }
    let connected = try #require(fixed, "no fix through gpsd: \(daemon.log)")
    #expect(connected.position.position?.source == "gpsd://127.0.0.1:2947")
    // The attempt that connected followed gpsd's socket appearing, not the backoff.
    #expect(connected.counters()["gpsdSocketAppeared"] == 1)
    try watch.wait(for: "gpsd://127.0.0.1:2947 connected")

    // gpsd stops: the loss is an outage, and the next attempt finds nothing listening:
    // waiting again, as `watch` says too.
    kill(gpsd.pid, SIGTERM)
    gpsd.wait(timeout: 10)
    _ = try daemon.waitForStatus(timeout: 30) { $0.sources.first?.state == .known(.waiting) }
    try watch.wait(
      for: "gpsd://127.0.0.1:2947 waiting: no gpsd on this machine yet (locd connects when it starts)")
    #expect(daemon.stop() == 0)
  }
}
