import Foundation
import Glibc
import LocCore
import Testing

@testable import LocSystem

/// How a gpsd holding a modem's GPS port is told from the process table, on a process table
/// the test lays out as /proc does (`comm`, `fd/N` symbolic links, `cmdline` with NULs): the
/// real /proc is checked with a real gpsd in ModemGpsdTests.
@Suite struct GpsdPortCheckTests {
  static func table(_ build: (String) throws -> Void) throws -> String {
    let root = NSTemporaryDirectory() + "proc-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    try build(root)
    return root
  }

  static func process(
    _ root: String, _ pid: Int, comm: String, fds: [String]?, cmdline: [String] = []
  ) throws {
    let dir = "\(root)/\(pid)"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    try (comm + "\n").write(toFile: dir + "/comm", atomically: true, encoding: .utf8)
    try Data(cmdline.flatMap { Array($0.utf8) + [0] }).write(to: URL(fileURLWithPath: dir + "/cmdline"))
    if let fds {
      try FileManager.default.createDirectory(atPath: dir + "/fd", withIntermediateDirectories: true)
      for (n, target) in fds.enumerated() {
        try FileManager.default.createSymbolicLink(atPath: "\(dir)/fd/\(n)", withDestinationPath: target)
      }
    }
  }

  @Test func aGpsdWithThePortOpenIsFoundAndOthersAreNot() throws {
    let root = try Self.table { root in
      try Self.process(root, 10, comm: "bash", fds: ["/dev/ttyUSB1"])
      try Self.process(root, 11, comm: "gpsd", fds: ["/dev/null", "socket:[1]", "/dev/ttyUSB3"])
      try Self.process(root, 12, comm: "gpsd", fds: ["/dev/null", "/dev/ttyUSB1"])
      try FileManager.default.createDirectory(atPath: root + "/self", withIntermediateDirectories: true)
    }
    #expect(
      GpsdPortCheck.holder(of: ["ttyUSB1"], proc: root)
        == GpsdPortCheck.Holder(pid: 12, device: "/dev/ttyUSB1", open: true))
    // Another process holding the port is not gpsd: no holder. Nor is a gpsd on another port.
    #expect(GpsdPortCheck.holder(of: ["ttyUSB2"], proc: root) == nil)
    #expect(GpsdPortCheck.holder(of: [], proc: root) == nil)
    #expect(GpsdPortCheck.holder(of: ["ttyUSB1"], proc: root + "/missing") == nil)
  }

  @Test func whereItsOpenFilesCannotBeReadItsCommandLineSays() throws {
    // A gpsd of another user: /proc/PID/fd unreadable (here: absent), its command line not.
    let root = try Self.table { root in
      try Self.process(root, 20, comm: "gpsd", fds: nil, cmdline: ["/usr/sbin/gpsd", "-N", "/dev/ttyUSB2"])
      try Self.process(root, 21, comm: "gpsd", fds: nil, cmdline: ["/usr/sbin/gpsd", "/dev/ttyUSB20"])
    }
    let holder = try #require(GpsdPortCheck.holder(of: ["ttyUSB2"], proc: root))
    #expect(holder == GpsdPortCheck.Holder(pid: 20, device: "/dev/ttyUSB2", open: false))
    #expect(holder.words.contains("was started on its GPS port /dev/ttyUSB2"))
    #expect(GpsdPortCheck.holder(of: ["ttyUSB9"], proc: root) == nil)
  }
}
