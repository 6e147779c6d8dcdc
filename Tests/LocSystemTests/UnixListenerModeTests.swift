import Foundation
import Glibc
import LocSystem
import Testing

/// `UnixSocket.listen` makes the socket file with exactly the mode and group asked for and
/// never wider on the way, without touching the process's umask: the umask is every thread's,
/// and a restrictive one set around bind was handed to a program another thread started
/// meanwhile (in the test process a compiled C program came out 0600 and could not be run).
@Suite(.serialized) struct UnixListenerModeTests {
  static func directory() throws -> String {
    var template = Array("/tmp/locd-listen-XXXXXX".utf8CString)
    try #require(mkdtemp(&template) != nil)
    return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The umask as /proc says it (reading it with umask(2) would set it).
  static func umaskNow() -> String? {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    return status.split(separator: "\n").first { $0.hasPrefix("Umask:") }.map { String($0.dropFirst(6)) }
  }

  @Test(arguments: [0o600, 0o660, 0o666] as [UInt32])
  func theFileHasTheModeAskedFor(_ mode: UInt32) throws {
    let dir = try Self.directory()
    let path = dir + "/s.sock"
    let socket = try UnixSocket.listen(path: path, mode: mode, gid: nil)
    var st = stat()
    #expect(stat(path, &st) == 0)
    #expect(st.st_mode & 0o7777 == mode && (st.st_mode & S_IFMT) == S_IFSOCK)
    _ = socket
    unlink(path)
    rmdir(dir)
  }

  @Test func theUmaskIsNeverChangedWhileListening() throws {
    let dir = try Self.directory()
    let before = try #require(Self.umaskNow())
    // A thread reads the umask as fast as it can while this one binds 300 sockets.
    final class Seen: @unchecked Sendable {
      let lock = NSLock()
      var values: Set<String> = []
      var done = false
    }
    let seen = Seen()
    let reader = Thread {
      while true {
        let v = Self.umaskNow()
        seen.lock.lock()
        if let v { seen.values.insert(v) }
        let stop = seen.done
        seen.lock.unlock()
        if stop { return }
      }
    }
    reader.start()
    for i in 0..<300 {
      let path = dir + "/s\(i).sock"
      _ = try UnixSocket.listen(path: path, mode: 0o660, gid: nil)
      unlink(path)
    }
    seen.lock.lock()
    seen.done = true
    seen.lock.unlock()
    while !reader.isFinished { usleep(1000) }
    #expect(seen.values == [before], "umask values seen while listening: \(seen.values)")
    rmdir(dir)
  }
}
