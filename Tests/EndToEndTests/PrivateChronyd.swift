import Foundation
import Glibc

/// The real chronyd (`-x`: it never sets the clock) on a private configuration in `dir` (mode
/// 0700, as chronyd wants for its command socket), its refclock at dir/refclock.sock and every
/// sample it takes logged to dir/refclocks.log; stopped at the end of the test. ChronyTimeTests
/// and ChronyTrustTests share it.
final class Chronyd {
  let child: Child
  let dir: String
  init(dir: String) throws {
    self.dir = dir
    chmod(dir, 0o700)
    let conf = """
      refclock SOCK \(dir)/refclock.sock refid GNSS poll 0
      cmdport 0
      bindcmdaddress \(dir)/chronyd.sock
      pidfile \(dir)/chronyd.pid
      driftfile \(dir)/drift
      logdir \(dir)
      log refclocks

      """
    try conf.write(toFile: dir + "/chrony.conf", atomically: true, encoding: .utf8)
    let log = open(dir + "/chronyd.log", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
    defer { close(log) }
    child = try Child(
      "/usr/bin/setpriv",
      [
        "--pdeathsig", "KILL", "--", "/usr/sbin/chronyd", "-x", "-d", "-u", "root", "-f",
        dir + "/chrony.conf",
      ],
      stdoutFD: log, stderrFD: log)
    let deadline = Date().addingTimeInterval(10)
    while !FileManager.default.fileExists(atPath: dir + "/refclock.sock"), Date() < deadline {
      usleep(20_000)
    }
  }

  /// The offsets of the samples chronyd took, in seconds (refclocks.log's raw offset:
  /// date, time, refid, driver poll, leap, pulse, raw offset, cooked offset, dispersion).
  var samples: [Double] {
    let text = (try? String(contentsOfFile: dir + "/refclocks.log", encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { line in
      let f = line.split(separator: " ", omittingEmptySubsequences: true)
      return f.count >= 9 && f[2] == "GNSS" ? Double(f[6]) : nil
    }
  }

  /// chronyd's own log.
  var log: String { (try? String(contentsOfFile: dir + "/chronyd.log", encoding: .utf8)) ?? "" }

  /// `chronyc -c sources`' line for GNSS: mode, state, name, stratum, poll, reach, ...
  func gnss() throws -> [String]? {
    let r = try run(
      URL(fileURLWithPath: "/usr/bin/chronyc"), ["-h", dir + "/chronyd.sock", "-c", "sources"])
    return r.stdout.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
      .first { $0.count >= 10 && $0[2] == "GNSS" }
  }

  deinit {
    kill(child.pid, SIGTERM)
    child.wait(timeout: 10)
  }
}
