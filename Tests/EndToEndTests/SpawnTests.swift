import Foundation
import Glibc
import Testing

/// The harness's children (Child, run) get their three standard descriptors and nothing
/// else, whatever other test threads have open.
@Suite struct SpawnTests {
  @Test func aChildGetsOnlyItsStandardDescriptors() throws {
    // Open without O_CLOEXEC, as Foundation's temporary files are, at a number no child
    // would pick for itself.
    let null = open("/dev/null", O_WRONLY)
    let stray = fcntl(null, F_DUPFD, 900)
    close(null)
    try #require(stray >= 900)
    defer { close(stray) }
    let r = try run(URL(fileURLWithPath: "/bin/ls"), ["/proc/self/fd"])
    #expect(r.status == 0, "\(r.stderr)")
    let open = r.stdout.split(separator: "\n").compactMap { Int32($0) }
    #expect([0, 1, 2].allSatisfy(open.contains), "\(open)")
    #expect(!open.contains(stray), "descriptor \(stray) leaked into the child: \(open)")
  }
}
