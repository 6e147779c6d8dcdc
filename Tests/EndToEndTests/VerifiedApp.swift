import Foundation
import Glibc

/// A process the kernel vouches for as an app: a child moved into a cgroup2 directory named
/// like the app's systemd unit (`app-[LAUNCHER-]ID@N.service`, made under a directory of this
/// test process; root only), which then speaks locd's protocol (python3, the socket module):
/// the greeting, a hello naming the app, one request, and its answer printed as the JSON line
/// locd wrote, then stays connected for `hold` seconds (an agent can answer a prompt it
/// raised meanwhile). Exit status 0 for a reply, 1 for an error, 2 for anything else.
enum VerifiedApp {
  static let script = #"""
    import json, socket, sys
    import time
    path, app, method, params = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
    hold = float(sys.argv[5])
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    f = s.makefile("rwb")
    def send(obj):
        f.write((json.dumps(obj) + "\n").encode()); f.flush()
    def answer(want):
        while True:
            line = f.readline()
            if not line:
                sys.exit(2)
            m = json.loads(line)
            if m.get("id") == want and m.get("type") in ("reply", "error"):
                return line.decode().strip(), m["type"]
    f.readline()  # the greeting
    send({"id": 0, "method": "hello", "params": {"protocol": 1, "client": "verified-app", "app": app}})
    line, kind = answer(0)
    if kind != "reply":
        print(line); sys.exit(2)
    send({"id": 1, "method": method, "params": params})
    line, kind = answer(1)
    print(line, flush=True)
    time.sleep(hold)
    sys.exit(0 if kind == "reply" else 1)
    """#

  /// Sends `method` with `params` (a JSON object's text) as app `app` from a process in the
  /// cgroup named `unit` (the app's systemd unit); returns what it printed.
  static func call(
    _ method: String, _ params: String, app: String, unit: String, socket: String, hold: Double = 0
  ) throws -> Completed {
    guard getuid() == 0 else { throw HarnessError("a verified app needs root (cgroups)") }
    let parent = AppsPolicyTests.cgroupRoot + "/locd-e2e-\(getpid())-verified"
    let cgroup = parent + "/" + unit
    for dir in [parent, cgroup] {
      guard mkdir(dir, 0o755) == 0 || errno == EEXIST else {
        throw HarnessError("cannot make \(dir): errno \(errno)")
      }
    }
    defer {
      rmdir(cgroup)
      rmdir(parent)
    }
    return try run(
      URL(fileURLWithPath: "/bin/sh"),
      [
        "-c", "echo $$ > \"$0\"/cgroup.procs && exec python3 -c \"$1\" \"$2\" \"$3\" \"$4\" \"$5\" \"$6\"",
        cgroup, script, socket, app, method, params, "\(hold)",
      ])
  }
}
