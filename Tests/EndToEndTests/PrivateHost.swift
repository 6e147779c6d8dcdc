import Foundation
import Glibc

/// A network and a /run of their own for locd and the peers a test starts beside it: there,
/// gpsd's port 2947 on 127.0.0.1 and /run/gpsd.sock belong to the test, whatever this machine
/// runs and whatever other tests run at the same time. The default source has one address
/// (`gpsd://127.0.0.1:2947`) and follows one socket (`/run/gpsd.sock`), with no option to move
/// them, so a test of it runs at those very places, in private namespaces (unshare(1): a new
/// network namespace with its loopback up, a new mount namespace with a tmpfs on /run).
/// locd's control socket and the test's files stay in /tmp, which is shared: a Unix socket
/// path works across network namespaces.
enum PrivateHost {
  /// Whether the tools are installed (util-linux's unshare and nsenter, iproute2's ip).
  static let installed = ["/usr/bin/unshare", "/usr/bin/nsenter", "/sbin/ip", "/bin/mount"].allSatisfy {
    FileManager.default.isExecutableFile(atPath: $0)
  }

  /// Runs the rest of a command line in new namespaces; it execs in place, so the command keeps
  /// the pid the test started (`LocdProcess(launcher:)`).
  static let launcher = [
    "/usr/bin/unshare", "--net", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
    #"ip link set lo up && mount -t tmpfs -o mode=0755 tmpfs /run && exec "$@""#, "sh",
  ]

  /// `nsenter` into the network and mount namespaces of `pid`, for a program and its
  /// arguments (it execs in place too).
  static func enter(_ pid: pid_t, _ command: [String]) -> (String, [String]) {
    ("/usr/bin/nsenter", ["--target", "\(pid)", "--net", "--mount", "--"] + command)
  }
}
