import LocCore
import LocSystem

/// `locbench daemon [--idle-seconds N] [--locd PATH]`: the built daemon, measured from
/// outside: exec to READY=1, idle RSS, wakeups while idle (no source traffic; an on-demand
/// gpsd source once it has a good fix), status round trips, and fix-to-subscriber latency
/// with 100 subscribers. `--latency-only` measures only the last, `--round-trip-only` only
/// the round trips (for alternating before/after rounds); `--per-fix` prints each
/// fix's slowest and median delivery too, in the fix's order (which fix makes the p99);
/// `--delivery-floor` measures the same delivery with no daemon (DaemonBenchmark+Delivery);
/// `--subscribers N` (default 100) sets how many subscribers both have.
enum DaemonBenchmark: Benchmark {
  static let name = "daemon"

  static func run(_ arguments: [String]) -> Int32 {
    guard
      let options = try? CommandLineOptions(
        arguments, valued: ["idle-seconds", "locd", "serve-floor", "feed-socket", "subscribers"],
        flagNames: ["latency-only", "round-trip-only", "per-fix", "delivery-floor"])
    else {
      print(
        "usage: locbench daemon [--idle-seconds N] [--locd PATH] [--latency-only | --round-trip-only | --delivery-floor] [--per-fix] [--subscribers N]"
      )
      return 2
    }
    guard let count = Int(options.value("subscribers") ?? "100"), (1...2000).contains(count) else {
      print("daemon: --subscribers takes 1 to 2000")
      return 2
    }
    // Each subscriber is a descriptor here (and, for the floor, one in the writer too).
    CurrentProcess.raiseDescriptorLimit(toAtLeast: count + 64)
    if let path = options.value("serve-floor"), let feed = options.value("feed-socket") {
      return serveFloor(path, feed: feed, subscribers: count)
    }
    if options.flag("delivery-floor") {
      deliveryFloor(subscribers: count, perFix: options.flag("per-fix"))
      return 0
    }
    let locd = options.value("locd") ?? ".build/release/locd"
    let idleSeconds = Int(options.value("idle-seconds") ?? "60") ?? 60
    guard FileIO.isExecutable(path: locd) else {
      print("daemon: \(locd) not built (swift build -c release)")
      return 1
    }
    if options.flag("round-trip-only") {
      roundTrips(locd)
      return 0
    }
    if !options.flag("latency-only") {
      startup(locd)
      idle(locd, seconds: idleSeconds)
      idleOnDemand(locd, seconds: idleSeconds, fixture: "Tests/Fixtures/nmea/nmea-rtk.log")
      roundTrips(locd)
    }
    latency(locd, subscribers: count, perFix: options.flag("per-fix"))
    return 0
  }

  // MARK: Measurements

  static func startup(_ locd: String) {
    var samples: [Double] = []
    var rss: [Int] = []
    for _ in 0..<20 {
      let run = DaemonRun(locd: locd, extraArguments: ["--source", "replay:/dev/null"], watchdogUSec: nil)
      let t0 = monotonicSeconds()
      run.start()
      guard run.waitFor("READY=1", timeout: 5) else {
        print("daemon: no READY=1 within 5 s")
        run.stop()
        return
      }
      samples.append((monotonicSeconds() - t0) * 1000)
      Clocks.sleep(microseconds: 200_000)
      rss.append(residentKiB(run.pid))
      run.stop()
    }
    print(
      "exec to READY=1: median \(fmt(median(samples))) ms, max \(fmt(samples.max() ?? 0)) ms (20 runs; target <= 100 ms)"
    )
    print(
      "idle RSS after start: median \(fmt(Double(median(rss.map(Double.init))) / 1024)) MiB (target <= 15 MiB)"
    )
  }

  static func idle(_ locd: String, seconds: Int) {
    let run = DaemonRun(
      locd: locd, extraArguments: ["--source", "replay:/dev/null"], watchdogUSec: 20_000_000)
    run.start()
    guard run.waitFor("READY=1", timeout: 5) else { return }
    Clocks.sleep(microseconds: 500_000)
    let before = contextSwitches(run.pid)
    let pingsBefore = run.count("WATCHDOG=1")
    Clocks.sleep(microseconds: Int64(seconds) * 1_000_000)
    let wakeups = contextSwitches(run.pid) - before
    let pings = run.count("WATCHDOG=1") - pingsBefore
    print(
      "idle for \(seconds) s (no source traffic, WatchdogSec=20s): \(wakeups) wakeups, \(pings) watchdog pings (target: only the watchdog's)"
    )
    print("idle RSS after \(seconds) s: \(fmt(Double(residentKiB(run.pid)) / 1024)) MiB")
    run.stop()
  }

  static func roundTrips(_ locd: String) {
    let run = DaemonRun(locd: locd, extraArguments: ["--source", "replay:/dev/null"], watchdogUSec: nil)
    run.start()
    guard run.waitFor("READY=1", timeout: 5) else { return }
    defer { run.stop() }
    guard let client = try? ControlClient(path: run.socket, client: "locbench") else {
      print("daemon: cannot connect")
      return
    }
    _ = try? client.call(.setLocation(Coordinate(lat: 59.9, lon: 10.7)!))
    var samples: [Double] = []
    for _ in 0..<2000 {
      let t0 = monotonicSeconds()
      _ = try? client.call(.status)
      samples.append((monotonicSeconds() - t0) * 1_000_000)
    }
    samples.sort()
    print(
      "status round trip (connected client): median \(fmt(median(samples))) us, p99 \(fmt(samples[samples.count * 99 / 100])) us (target: median <= 150 us on a quiet machine)"
    )
    var execs: [Double] = []
    let locctl = String(locd.dropLast(4)) + "locctl"
    for _ in 0..<20 {
      let t0 = monotonicSeconds()
      let pid = spawn(locctl, ["--socket", run.socket, "status", "--json"], environment: [])
      if pid > 0 { _ = try? ChildProcess.wait(pid) }
      execs.append((monotonicSeconds() - t0) * 1000)
    }
    print("`locctl status --json` (exec, connect, hello, status): median \(fmt(median(execs))) ms")
  }

  /// Fix to subscriber: locd with `count` location subscribers and the feed as its receiver
  /// (`nmea+unix-listen://`), each delivery timed from when its fix's bytes were written
  /// (DaemonBenchmark+Delivery).
  static func latency(_ locd: String, subscribers count: Int, perFix: Bool = false) {
    guard let feedDirectory = try? FileIO.makeTemporaryDirectory(prefix: "/tmp/locbench-feed-") else {
      print("daemon: no temporary directory")
      return
    }
    let feedPath = feedDirectory + "/feed.sock"
    defer { try? FileIO.removeDirectory(path: feedDirectory) }
    let run = DaemonRun(
      locd: locd, extraArguments: ["--source", "nmea+unix-listen://" + feedPath], watchdogUSec: nil)
    run.start()
    guard run.waitFor("READY=1", timeout: 5) else { return }
    defer { run.stop() }
    var subscribers: [Subscriber] = []
    for _ in 0..<count {
      guard let socket = try? UnixSocket.connect(path: run.socket) else { continue }
      let hello =
        #"{"id":0,"method":"hello","params":{"protocol":1}}"# + "\n"
        + #"{"id":1,"method":"subscribe","params":{"events":["location"]}}"# + "\n"
      try? socket.writeAll(Array(hello.utf8))
      try? socket.setNonBlocking()
      subscribers.append(Subscriber(socket: socket))
    }
    let what = "fix-to-subscriber latency, \(subscribers.count) subscribers"
    measure(subscribers, feeding: feedPath, perFix: perFix, what: what, target: target(subscribers: count))
  }

  // MARK: Helpers

  static func median(_ values: [Double]) -> Double {
    let s = values.sorted()
    return s.isEmpty ? 0 : s[s.count / 2]
  }

  static func fmt(_ v: Double) -> String {
    let r = (v * 100).rounded() / 100
    return String(r)
  }

  static func monotonicSeconds() -> Double {
    Double(Clocks.nanoseconds(.monotonic)) / 1e9
  }

  static func wallMicroseconds() -> Int64 {
    Clocks.microseconds(.realtime)
  }

  static func procStatus(_ pid: Int32) -> [Substring] {
    guard let bytes = try? FileIO.read(path: "/proc/\(pid)/status") else { return [] }
    return String(decoding: bytes, as: UTF8.self).split(separator: "\n")
  }

  static func residentKiB(_ pid: Int32) -> Int {
    procStatus(pid).first { $0.hasPrefix("VmRSS:") }.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
  }

  /// Voluntary plus involuntary context switches: each wakeup of a sleeping daemon is one.
  static func contextSwitches(_ pid: Int32) -> Int {
    procStatus(pid).filter {
      $0.hasPrefix("voluntary_ctxt_switches:") || $0.hasPrefix("nonvoluntary_ctxt_switches:")
    }
    .compactMap { $0.split(separator: "\t").last.flatMap { Int($0.trimmingSpaces()) } }.reduce(0, +)
  }

  /// Starts `path` with this process's environment less systemd's (NOTIFY_SOCKET,
  /// WATCHDOG_*, LISTEN_*), plus `environment`; output and errors to /dev/null. The pid, or 0
  /// when it could not be started.
  static func spawn(_ path: String, _ arguments: [String], environment: [String]) -> Int32 {
    let inherited = CurrentProcess.environmentEntries().filter {
      !$0.hasPrefix("NOTIFY_SOCKET=") && !$0.hasPrefix("WATCHDOG_") && !$0.hasPrefix("LISTEN_")
    }
    return
      (try? ChildProcess.spawnQuietly(
        path: path, arguments: [path] + arguments, environment: inherited + environment)) ?? 0
  }
}

/// One client of the latency measurement (a class, so the sockets can live in an array).
final class Subscriber {
  /// The connection to locd.
  let socket: FileDescriptor

  init(socket: consuming FileDescriptor) { self.socket = socket }
}

/// One locd under measurement, with a datagram socket posing as NOTIFY_SOCKET.
final class DaemonRun {
  let locd: String
  let directory: String
  let socket: String
  let notifyPath: String
  /// The stand-in NOTIFY_SOCKET, bound at `notifyPath`.
  let notify: FileDescriptor?
  let extraArguments: [String]
  let watchdogUSec: Int?
  /// The configuration file locd reads (`--config`).
  var configPath = "/dev/null"
  var pid: Int32 = 0
  var messages: [String] = []

  init(locd: String, extraArguments: [String], watchdogUSec: Int?) {
    self.locd = locd
    // Without a directory of its own the run fails at start, as it did with mkdtemp's template.
    directory = (try? FileIO.makeTemporaryDirectory(prefix: "/tmp/locbench-")) ?? "/tmp/locbench-XXXXXX"
    socket = directory + "/locd.sock"
    notifyPath = directory + "/notify.sock"
    self.extraArguments = extraArguments
    self.watchdogUSec = watchdogUSec
    notify = try? UnixSocket.bindDatagram(path: notifyPath)
    // A big receive buffer, so pings never block the daemon between our reads.
    try? notify?.setReceiveBufferSize(1 << 20)
  }

  func start() {
    var env = ["NOTIFY_SOCKET=\(notifyPath)"]
    if let w = watchdogUSec { env.append("WATCHDOG_USEC=\(w)") }
    pid = DaemonBenchmark.spawn(
      locd,
      [
        "--config", configPath, "--socket", socket, "--state-dir", directory + "/state", "--log-level",
        "notice",
      ]
        + extraArguments, environment: env)
  }

  /// Reads datagrams until one contains `text` (true) or the timeout (false).
  func waitFor(_ text: String, timeout: Double) -> Bool {
    let end = DaemonBenchmark.monotonicSeconds() + timeout
    while DaemonBenchmark.monotonicSeconds() < end {
      drain(wait: Int32(max(1, (end - DaemonBenchmark.monotonicSeconds()) * 1000)))
      if messages.contains(where: { $0.contains(text) }) { return true }
    }
    return false
  }

  func drain(wait: Int32 = 0) {
    let number: Int32
    switch notify {
    case .some(let socket): number = socket.rawValue
    case .none: return
    }
    var first = true
    while (try? FileDescriptor.waitReadable([number], milliseconds: first ? wait : 0))?.isEmpty == false {
      first = false
      var buffer = [UInt8](repeating: 0, count: 4096)
      let n = buffer.withUnsafeMutableBytes { raw in (try? notify?.receive(into: raw)) ?? nil } ?? 0
      guard n > 0 else { break }
      messages.append(String(decoding: buffer[0..<n], as: UTF8.self))
    }
  }

  /// How many datagrams so far contain `text`.
  func count(_ text: String) -> Int {
    drain()
    return messages.filter { $0.contains(text) }.count
  }

  func stop() {
    if pid > 0 {
      try? Signals.send(Signals.terminate, to: pid)
      _ = try? ChildProcess.wait(pid)
    }
    try? FileIO.remove(path: notifyPath)
  }
}
