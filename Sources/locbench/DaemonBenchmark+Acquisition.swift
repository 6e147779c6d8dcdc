import LocCore
import LocSystem

/// Wakeups of a daemon whose receiver sleeps: locd against a real gpsd (gpsfake, from
/// gpsd-clients) with the on-demand policy, measured once acquisition has settled, against
/// the same with `Policy=continuous`.
extension DaemonBenchmark {
  static func idleOnDemand(_ locd: String, seconds: Int, fixture: String) {
    guard FileIO.isExecutable(path: "/usr/bin/gpsfake") else {
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
      guard let config = writeConfig(policy: policy) else {
        print("idle with a \(policy) gpsd source: cannot write a configuration in /tmp")
        return
      }
      let run = DaemonRun(
        locd: locd,
        extraArguments: ["--source", "gpsd://127.0.0.1:\(port)", "--config", config],
        watchdogUSec: nil)
      run.start()
      defer { run.stop() }
      guard run.waitFor("READY=1", timeout: 5), let settledAt = waitUntilSettled(run, policy: policy) else {
        print("idle with a \(policy) gpsd source: no good fix within 30 s")
        return
      }
      // The last fix stops being fresh 10 s (FreshFor) after it came: one wakeup, then quiet.
      if policy == "on-demand" {
        Clocks.sleep(microseconds: Int64(max(0, 12 - (monotonicSeconds() - settledAt)) * 1_000_000))
      }
      let before = contextSwitches(run.pid)
      Clocks.sleep(microseconds: Int64(window) * 1_000_000)
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

  /// A locd.conf with the acquisition policy (RefreshInterval 15 min, the default): its path,
  /// or nil when it cannot be written.
  static func writeConfig(policy: String) -> String? {
    try? FileIO.writeTemporaryFile(
      prefix: "/tmp/locbench-conf-", Array("[Acquisition]\nPolicy=\(policy)\n".utf8))
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
      Clocks.sleep(microseconds: 100_000)
    }
    return nil
  }

  /// Stops gpsfake and the gpsd it started (its child).
  static func stopGpsFake(_ pid: Int32) {
    guard pid > 0 else { return }
    for child in children(of: pid) { try? Signals.send(Signals.terminate, to: child) }
    try? Signals.send(Signals.terminate, to: pid)
    _ = try? ChildProcess.wait(pid)
  }

  /// Processes whose parent is `pid` (from /proc/N/stat).
  static func children(of pid: Int32) -> [Int32] {
    guard let names = try? FileIO.directoryEntries(path: "/proc") else { return [] }
    var out: [Int32] = []
    for name in names {
      guard let child = Int32(name), let bytes = try? FileIO.read(path: "/proc/\(child)/stat") else {
        continue
      }
      let stat = String(decoding: bytes, as: UTF8.self)
      guard let close = stat.lastIndex(of: ")") else { continue }
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      if fields.count > 1, Int32(fields[1]) == pid { out.append(child) }
    }
    return out
  }
}
