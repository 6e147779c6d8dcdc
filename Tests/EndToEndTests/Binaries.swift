import CLocShim
import Foundation
import Glibc

/// Paths of the built products; `swift build` puts them next to the test bundle.
enum Binaries {
  /// The package root, found from this file's path.
  static let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
  /// The directory with the built executables (LOCD_BUILD_DIR overrides).
  static var buildDirectory: URL {
    if let dir = ProcessInfo.processInfo.environment["LOCD_BUILD_DIR"] { return URL(fileURLWithPath: dir) }
    return packageRoot.appendingPathComponent(".build/debug")
  }
  static var locd: URL { buildDirectory.appendingPathComponent("locd") }
  static var locctl: URL { buildDirectory.appendingPathComponent("locctl") }
  /// The per-user session service (light and dark on the session bus).
  static var locdSession: URL { buildDirectory.appendingPathComponent("locd-session") }
  /// The example app of docs/APPS.md, built on the LocationManager library.
  static var whereAmI: URL { buildDirectory.appendingPathComponent("WhereAmI") }
  /// The region example of docs/REGIONS.md.
  static var geofence: URL { buildDirectory.appendingPathComponent("Geofence") }
  /// A fixture file under Tests/Fixtures.
  static func fixture(_ relative: String) -> URL {
    packageRoot.appendingPathComponent("Tests/Fixtures").appendingPathComponent(relative)
  }
}

/// The result of running a program to completion.
struct Completed {
  var status: Int32
  var stdout: String
  var stderr: String
}

/// Runs a program with arguments, optional stdin and environment additions, and waits
/// for it (60 s at most), collecting its output.
func run(
  _ executable: URL, _ arguments: [String], stdin: String? = nil,
  environment: [String: String] = [:], timeout: Double = 60
) throws -> Completed {
  var inPipe: [Int32] = [0, 0]
  var outPipe: [Int32] = [0, 0]
  var errPipe: [Int32] = [0, 0]
  guard locshim_pipe2(&inPipe, O_CLOEXEC) == 0, locshim_pipe2(&outPipe, O_CLOEXEC) == 0,
    locshim_pipe2(&errPipe, O_CLOEXEC) == 0
  else {
    throw HarnessError("pipe")
  }
  let child = try Child(
    executable.path, arguments, environment: environment, stdinFD: inPipe[0], stdoutFD: outPipe[1],
    stderrFD: errPipe[1])
  close(inPipe[0])
  close(outPipe[1])
  close(errPipe[1])
  // Feed stdin and read both outputs without blocking on any one of them.
  var input = Array((stdin ?? "").utf8)
  var inputFD: Int32 = inPipe[1]
  if input.isEmpty {
    close(inputFD)
    inputFD = -1
  } else {
    _ = fcntl(inputFD, F_SETFL, O_NONBLOCK)
  }
  var out: [UInt8] = []
  var err: [UInt8] = []
  var open = [outPipe[0], errPipe[0]]
  let deadline = Date().addingTimeInterval(timeout)
  var chunk = [UInt8](repeating: 0, count: 65536)
  while !open.isEmpty || inputFD >= 0 {
    guard Date() < deadline else { break }
    var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    if inputFD >= 0 { fds.append(pollfd(fd: inputFD, events: Int16(POLLOUT), revents: 0)) }
    guard poll(&fds, nfds_t(fds.count), 100) > 0 else { continue }
    for p in fds where p.revents != 0 {
      if p.fd == inputFD {
        let n = input.withUnsafeBytes { write(inputFD, $0.baseAddress, $0.count) }
        if n > 0 { input.removeFirst(n) }
        if n < 0 && errno != EAGAIN || input.isEmpty {
          close(inputFD)
          inputFD = -1
        }
        continue
      }
      let n = chunk.withUnsafeMutableBytes { read(p.fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      // POLLNVAL/EBADF: another thread of this process closed the descriptor (a close(2)
      // twice elsewhere); what the child wrote is lost, so say so instead of returning less.
      if p.revents & Int16(POLLNVAL) != 0 || n < 0 && errno == EBADF {
        for fd in open where fd != p.fd { close(fd) }
        if inputFD >= 0 { close(inputFD) }
        throw HarnessError("\(executable.lastPathComponent): its output pipe was closed by someone else")
      }
      if n <= 0 {
        close(p.fd)
        open.removeAll { $0 == p.fd }
      } else if p.fd == outPipe[0] {
        out.append(contentsOf: chunk[0..<n])
      } else {
        err.append(contentsOf: chunk[0..<n])
      }
    }
  }
  for fd in open { close(fd) }
  if inputFD >= 0 { close(inputFD) }
  let status = child.wait(timeout: max(1, deadline.timeIntervalSinceNow))
  return Completed(
    status: status, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self)
  )
}
