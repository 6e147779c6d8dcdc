import Foundation
import LocCore
import LocSystem
import Testing

@Suite struct ZoneBoundaryFileTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

  @Test func dataDirectoryOverridesEverything() {
    let paths = ZoneBoundaryFile.candidatePaths(dataDirectory: "/srv/locd/", executable: "/usr/bin/locd") {
      _ in true
    }
    #expect(paths == ["/srv/locd/timezone-boundaries.bin"])
  }

  @Test func installedLayoutThenCheckout() {
    let installed = ZoneBoundaryFile.candidatePaths(dataDirectory: nil, executable: "/usr/local/bin/locd") {
      _ in false
    }
    #expect(installed == ["/usr/local/share/locd/timezone-boundaries.bin"])
    let checkout = ZoneBoundaryFile.candidatePaths(
      dataDirectory: "", executable: "/home/me/locd/.build/x86_64-unknown-linux-gnu/debug/locctl"
    ) { $0 == "/home/me/locd/Package.swift" }
    #expect(
      checkout == [
        "/home/me/locd/.build/x86_64-unknown-linux-gnu/share/locd/timezone-boundaries.bin",
        "/home/me/locd/data/timezone-boundaries.bin",
      ])
    #expect(ZoneBoundaryFile.candidatePaths(dataDirectory: nil, executable: nil) == [])
  }

  @Test func opensTheCommittedFile() throws {
    let file = try ZoneBoundaryFile(path: Self.root + "/data/timezone-boundaries.bin")
    #expect(file.boundaries.boundaryRelease == "2026c")
    #expect(try file.boundaries.zoneName(at: Coordinate(lat: 59.9139, lon: 10.7522)!) == "Europe/Oslo")
  }

  @Test func unreadableAndInvalidFilesAreErrors() throws {
    #expect {
      _ = try ZoneBoundaryFile(path: "/nonexistent/timezone-boundaries.bin")
    } throws: { error in
      guard case ZoneBoundaryFile.LoadError.unreadable(_, let errno) = error else { return false }
      return errno.code == ENOENT
    }
    #expect {
      _ = try ZoneBoundaryFile(path: "/dev/null")
    } throws: { error in
      if case ZoneBoundaryFile.LoadError.unreadable = error { return true }
      return false
    }
    let empty = FileManager.default.temporaryDirectory.appendingPathComponent("locd-empty-\(getpid()).bin")
    #expect(FileManager.default.createFile(atPath: empty.path, contents: Data()))
    defer { try? FileManager.default.removeItem(at: empty) }
    #expect(try MappedFile(path: empty.path).bytes.count == 0)
    #expect {
      _ = try ZoneBoundaryFile(path: empty.path)
    } throws: { error in
      guard case ZoneBoundaryFile.LoadError.invalid(_, .truncated(expected: 80, actual: 0)) = error else {
        return false
      }
      return true
    }
  }
}
