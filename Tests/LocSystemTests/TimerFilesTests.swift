import Foundation
import Glibc
import LocCore
import Testing

@testable import LocSystem

/// A reload reads every timer file; a directory of thousands of broken (or too many) files
/// costs a few log lines, not one per file (issue 15: 9,000 lines per reload).
@Suite(.enabled(if: getuid() == 0, "the timer directory must be root's to be read"))
struct TimerFilesTests {
  func directory(_ files: [String: String]) throws -> String {
    var template = Array("/tmp/locd-timers-XXXXXX".utf8CString)
    let dir = String(cString: try #require(mkdtemp(&template)))
    chmod(dir, 0o755)
    for (name, text) in files { try text.write(toFile: dir + "/" + name, atomically: false, encoding: .utf8) }
    return dir
  }

  @Test func manyBrokenFilesAreSummarized() throws {
    let names = (0..<1000).map { String(format: "t%04d.timer", $0) }
    let dir = try directory(Dictionary(uniqueKeysWithValues: names.map { ($0, "[Timer]\nRule=sunsett\n") }))
    let (timers, problems) = TimerFiles.load(directory: dir, limit: 1024)
    #expect(timers.isEmpty)
    // 20 problems of their own (TimerFiles.problemsListed), then one line for the other 980.
    #expect(problems.count == 21)
    #expect(problems.first?.contains("t0000.timer") == true)
    #expect(problems.last == "\(dir): 980 more problems with timer files not listed")
  }

  @Test func filesOverTheLimitAreNamedInOneLine() throws {
    let dir = try directory(
      Dictionary(
        uniqueKeysWithValues: ["a", "b", "c", "d", "e"].map { ("\($0).timer", "[Timer]\nRule=12:00\n") }))
    let (timers, problems) = TimerFiles.load(directory: dir, limit: 2)
    #expect(timers.map(\.name) == ["a", "b"])
    #expect(
      problems == [
        "\(dir): 3 timer files not loaded (c.timer to e.timer): more than 2 timer files (MaxTimers=)"
      ])
  }
}
