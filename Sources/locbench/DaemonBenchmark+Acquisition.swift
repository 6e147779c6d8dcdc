import LocCore
import LocSystem

#if canImport(Glibc)
  import Glibc
#endif

/// Wakeups of a daemon whose receiver sleeps: locd against a real gpsd (gpsfake, from
/// gpsd-clients) with the on-demand policy, measured once acquisition has settled, against
/// the same with `Policy=continuous`.
extension DaemonBenchmark {
  static func idleOnDemand(_ locd: String, seconds: Int, fixture: String) {
    guard access("/usr/bin/gpsfake", X_OK) == 0 else {
      print("idle with an on-demand gpsd source: skipped (gpsfake not installed; scripts/deps.sh bench)")
      return
    }
    for (policy, window) in [("on-demand", seconds), ("continuous", min(seconds, 10))] {
      guard let port = InetSocket.freeLoopbackPort() else {
        print("idle with an on-demand gpsd source: no free loopback port")
        return
      }
      // gpsd without -n: it opens the receiver only while someone watches.
      let fake = spawn("/usr/bin/gpsfake", ["-q", "-c", "0.02", "-P", "\(port)", fixture], environment: [])
      defer { stopGpsFake(fake) }
      let run = DaemonRun(
        locd: locd,
        extraArguments: ["--source", "gpsd://127.0.0.1:\(port)", "--config", writeConfig(policy: policy)],
        watchdogUSec: nil)
      run.start()
      defer { run.stop() }
      guard run.waitFor("READY=1", timeout: 5), let settledAt = waitUntilSettled(run, policy: policy) else {
        print("idle with a \(policy) gpsd source: no good fix within 30 s")
        return
      }
      // The last fix stops being fresh 10 s (FreshFor) after it came: one wakeup, then quiet.
      if policy == "on-demand" { usleep(UInt32(max(0, 12 - (monotonicSeconds() - settledAt)) * 1_000_000)) }
      let before = contextSwitches(run.pid)
      sleep(UInt32(window))
      let wakeups = contextSwitches(run.pid) - before
      let watching = (try? ControlClient(path: run.socket, client: "locbench"))
        .flatMap { try? $0.call(.status) }?.sources.first?.counter("watching")
      if policy == "on-demand" {
        print(
          "idle, on-demand gpsd source after a good fix (gpsd watch \(watching == 0 ? "off" : "on?")), \(window) s: \(wakeups) wakeups (target 0 until the 15 min refresh)"
        )
      } else {
        let rate = fmt(Double(wakeups) / Double(window))
        print(
          "for comparison, Policy=continuous, gpsd reporting (gpsfake at 0.02 s a sentence), \(window) s: \(wakeups) wakeups (\(rate)/s)"
        )
      }
    }
  }

  /// A locd.conf with the acquisition policy (RefreshInterval 15 min, the default).
  static func writeConfig(policy: String) -> String {
    var template = Array("/tmp/locbench-conf-XXXXXX".utf8CString)
    let file = FileDescriptor(owning: mkstemp(&template))
    try? file.writeAll(Array("[Acquisition]\nPolicy=\(policy)\n".utf8))
    return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
  }

  /// Waits for acquisition to settle (on-demand) or for the first fix (continuous);
  /// returns when, on the monotonic clock.
  static func waitUntilSettled(_ run: DaemonRun, policy: String) -> Double? {
    let end = monotonicSeconds() + 30
    while monotonicSeconds() < end {
      if let client = try? ControlClient(path: run.socket, client: "locbench"),
        let s = try? client.call(.status)
      {
        if policy == "on-demand", let a = s.acquisition, a.phase == .idle, case .settled? = a.lastOutcome {
          return monotonicSeconds()
        }
        if policy == "continuous", s.position.tier == .fix { return monotonicSeconds() }
      }
      usleep(100_000)
    }
    return nil
  }

  /// Stops gpsfake and the gpsd it started (its child).
  static func stopGpsFake(_ pid: pid_t) {
    for child in children(of: pid) { kill(child, SIGTERM) }
    kill(pid, SIGTERM)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
  }

  /// Processes whose parent is `pid` (from /proc/N/stat).
  static func children(of pid: pid_t) -> [pid_t] {
    guard let dir = opendir("/proc") else { return [] }
    defer { closedir(dir) }
    var out: [pid_t] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) {
        String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
      }
      guard let child = pid_t(name), let bytes = try? FileIO.read(path: "/proc/\(child)/stat") else {
        continue
      }
      let stat = String(decoding: bytes, as: UTF8.self)
      guard let close = stat.lastIndex(of: ")") else { continue }
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      if fields.count > 1, pid_t(fields[1]) == pid { out.append(child) }
    }
    return out
  }
}
