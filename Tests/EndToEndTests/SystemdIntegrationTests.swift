import Foundation
import Glibc
import LocCore
import LocProtocol
import LocSystem
import Synchronization
import Testing

/// A datagram socket posing as systemd's NOTIFY_SOCKET. Like PID 1 it drains the socket
/// all the time (a full datagram queue would block the sender), on a thread of its own.
final class NotifySocket: Sendable {
  /// The socket and what came in; shared with the draining thread, which keeps it (and so
  /// the socket) alive until it ends.
  final class Inbox: Sendable {
    let socket: FileDescriptor
    let messages = Mutex<[String]>([])

    init(socket: consuming FileDescriptor) { self.socket = socket }

    /// Receives datagrams (blocking) until the socket is shut down.
    func drain() {
      var buffer = [UInt8](repeating: 0, count: 4096)
      while true {
        let n = buffer.withUnsafeMutableBytes { raw in (try? socket.read(into: raw)) ?? 0 }
        guard n > 0 else { return }
        let message = String(decoding: buffer[0..<n], as: UTF8.self)
        messages.withLock { $0.append(message) }
      }
    }
  }

  let path: String
  private let inbox: Inbox

  convenience init(directory: String) throws {
    try self.init(path: directory + "/notify.sock")
  }

  init(path: String) throws {
    self.path = path
    do { inbox = Inbox(socket: try UnixSocket.bindDatagram(path: path)) } catch {
      throw HarnessError("\(error)")
    }
    let inbox = self.inbox
    Thread.detachNewThread { inbox.drain() }
  }

  // Wakes the thread's read with end of file; the socket closes when the thread lets go.
  deinit { shutdown(inbox.socket.rawValue, Int32(SHUT_RDWR)) }

  /// Every datagram received so far, once one matches `predicate` (or at the timeout).
  func receive(until predicate: (String) -> Bool, timeout: Double = 10) -> [String] {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      let snapshot = inbox.messages.withLock { $0 }
      if snapshot.contains(where: predicate) || deadline.timeIntervalSinceNow < 0 { return snapshot }
      usleep(10_000)
    }
  }
}

@Suite struct SystemdIntegrationTests {
  @Test func notifiesReadyStatusWatchdogAndStopping() throws {
    let dir = LocdProcess.makeDirectory()
    let notify = try NotifySocket(directory: dir)
    let daemon = try LocdProcess(
      environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "200000"], directory: dir, wait: false)
    let ready = notify.receive(until: { $0.contains("READY=1") })
    #expect(ready.contains(where: { $0.contains("READY=1") && $0.contains("STATUS=") }))
    // READY=1 comes only once the socket answers.
    let client = try RawClient(path: daemon.socketPath)
    guard case .greeting(let greeting) = try client.readMessage() else {
      Issue.record("no greeting")
      return
    }
    #expect(greeting.version == .current)
    let pings = notify.receive(until: { $0.contains("WATCHDOG=1") }, timeout: 3)
    #expect(pings.contains(where: { $0.contains("WATCHDOG=1") }))
    #expect(try daemon.locctl(["set-location", "48.8566", "2.3522"]).status == 0)
    let statusUpdate = notify.receive(until: { $0.contains("STATUS=manual location") })
    #expect(statusUpdate.contains(where: { $0.contains("STATUS=manual location") }))
    // STATUS= never carries coordinates.
    #expect(!statusUpdate.contains(where: { $0.contains("48.8") }))
    kill(daemon.pid, SIGTERM)
    let stopping = notify.receive(until: { $0.contains("STOPPING=1") })
    #expect(stopping.contains(where: { $0.contains("STOPPING=1") }))
    #expect(daemon.stop() == 0)
  }

  @Test(
    .enabled(
      if: !FileManager.default.fileExists(atPath: "/run/systemd/journal/socket"), "a real journald runs here"),
    .enabled(if: getuid() == 0, "needs root: it poses as journald at /run/systemd/journal/socket")
  )
  func logsToTheJournalWithStructuredFieldsWhenStderrIsTheJournal() throws {
    // A datagram socket posing as journald's native socket (systemd-journald.service(8)).
    try FileManager.default.createDirectory(atPath: "/run/systemd/journal", withIntermediateDirectories: true)
    let journal = try NotifySocket(path: "/run/systemd/journal/socket")
    defer { unlink("/run/systemd/journal/socket") }
    let dir = LocdProcess.makeDirectory()
    // stderr goes to locd.log; JOURNAL_STREAM names that file, as systemd would for the journal.
    #expect(FileManager.default.createFile(atPath: dir + "/locd.log", contents: nil))
    var st = stat()
    #expect(stat(dir + "/locd.log", &st) == 0)
    let daemon = try LocdProcess(
      environment: ["JOURNAL_STREAM": "\(st.st_dev):\(st.st_ino)"], directory: dir, wait: false)
    let got = journal.receive(until: { $0.contains("MESSAGE=locd 0.1.0 ready") })
    let ready = try #require(got.first { $0.contains("MESSAGE=locd 0.1.0 ready") })
    #expect(ready.contains("PRIORITY=6\n"))
    #expect(ready.contains("SYSLOG_IDENTIFIER=locd\n"))
    #expect(ready.contains("LOCD_SOCKET=\(daemon.socketPath)"))
    daemon.stop()
    // Nothing went to the plain stderr stream meanwhile.
    #expect(!daemon.log.contains("ready on"))
  }

  @Test func servesASocketPassedBySystemdSocketActivate() throws {
    let dir = LocdProcess.makeDirectory()
    let socketPath = dir + "/activated.sock"
    let activator = try Child(
      "/usr/bin/systemd-socket-activate",
      [
        "-l", socketPath, Binaries.locd.path, "--config", "/dev/null", "--state-dir", dir + "/state",
        "--socket", socketPath,
      ])
    defer {
      kill(activator.pid, SIGTERM)
      // systemd-socket-activate execs locd in its own process, so this is locd stopping.
      #expect(activator.wait() == 0)
    }
    var ready = false
    for _ in 0..<200 where !ready {
      ready = FileManager.default.fileExists(atPath: socketPath)
      if !ready { usleep(20_000) }
    }
    #expect(ready)
    // The first connection makes systemd-socket-activate exec locd with the socket as fd 3.
    let r = try run(Binaries.locctl, ["--socket", socketPath, "status", "--json"])
    #expect(r.status == 0, "\(r.stderr)")
    let status = try decodeOutput(r.stdout, as: StatusView.self)
    #expect(status.position.tier == .none)
    #expect(try run(Binaries.locctl, ["--socket", socketPath, "set-location", "1", "1"]).status == 0)
  }
}
