import Foundation
import Testing

/// What a program built on the LocationManager library, and locctl, link: the library stands on
/// LocClient (the socket's client and the few syscall wrappers it needs), not on the daemon's
/// shell, so an app loads no libsystemd (issue 22, item 7; decision 0038). ldd(1) lists every
/// shared library the dynamic linker loads for a program, needed directly or through
/// another library, so a dependency that comes back by any road shows.
@Suite struct ClientLinkTests {
  /// The sonames ldd lists for `binary` ("libc.so.6", "linux-vdso.so.1", ...): the first
  /// word of each of its lines ("\tlibc.so.6 => /lib/.../libc.so.6 (0x...)").
  static func sharedLibraries(of binary: URL) throws -> [String] {
    try #require(
      FileManager.default.isExecutableFile(atPath: binary.path), "\(binary.path) is not built (swift build)")
    let r = try run(URL(fileURLWithPath: "/usr/bin/ldd"), [binary.path])
    try #require(r.status == 0, "ldd \(binary.path) exited \(r.status): \(r.stderr)")
    return r.stdout.split(separator: "\n").compactMap { line in
      line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init)
    }
  }

  /// The check sees libsystemd where it is: locd is built on it (sd-event, sd-bus). Without
  /// this, a parsing slip that finds no libraries at all would pass the test below.
  @Test func theDaemonLinksLibsystemd() throws {
    let libraries = try ClientLinkTests.sharedLibraries(of: Binaries.locd)
    #expect(libraries.contains { $0.hasPrefix("libsystemd.so") }, "ldd locd: \(libraries)")
    #expect(libraries.contains { $0.hasPrefix("libc.so") }, "ldd locd: \(libraries)")
  }

  /// The two examples of the library (docs/APPS.md, docs/REGIONS.md) link no libsystemd.
  @Test(arguments: ["WhereAmI", "Geofence"]) func anAppLinksNoLibsystemd(_ example: String) throws {
    let binary = Binaries.buildDirectory.appendingPathComponent(example)
    let libraries = try ClientLinkTests.sharedLibraries(of: binary)
    #expect(libraries.contains { $0.hasPrefix("libc.so") }, "ldd \(example): \(libraries)")
    #expect(!libraries.contains { $0.hasPrefix("libsystemd") }, "ldd \(example): \(libraries)")
  }

  /// locctl stands on LocClient and LocHost (files, accounts, clocks, zone data), not on the
  /// daemon's shell: it loads no libsystemd either (issue 22, item 7), so the tool works,
  /// and its offline commands run, where the library is not installed.
  @Test func locctlLinksNoLibsystemd() throws {
    let libraries = try ClientLinkTests.sharedLibraries(of: Binaries.locctl)
    #expect(libraries.contains { $0.hasPrefix("libc.so") }, "ldd locctl: \(libraries)")
    #expect(!libraries.contains { $0.hasPrefix("libsystemd") }, "ldd locctl: \(libraries)")
  }
}
