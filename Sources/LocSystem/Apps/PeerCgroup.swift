import LocCore

/// What the kernel says about a peer process: its cgroup, read from /proc/PID/cgroup
/// (cgroup(7)) and classified by `PeerUnit`. The pid is SO_PEERCRED's, taken when the client
/// connected; a client that exits and whose pid is reused before its hello is read is a
/// (short) race that only ever names another real process's unit, never one the client chose.
enum PeerCgroup {
  /// The unit of process `pid`, or why it could not be read.
  static func unit(of pid: Int32, procRoot: String = "/proc") -> PeerUnit {
    guard pid > 0 else { return .unknown("no process id") }
    do {
      let bytes = try FileIO.read(path: "\(procRoot)/\(pid)/cgroup", limit: PeerUnit.maxFileBytes)
      return PeerUnit(cgroupFile: String(decoding: bytes, as: UTF8.self))
    } catch {
      return .unknown("\(procRoot)/\(pid)/cgroup: \(error)")
    }
  }
}
