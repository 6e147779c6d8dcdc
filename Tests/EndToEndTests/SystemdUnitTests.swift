import Foundation
import Glibc
import Testing

/// The shipped units, as `make install` writes them, checked by systemd's own tools.
@Suite struct SystemdUnitTests {
  /// Installs into a temporary DESTDIR with the debug binaries (no rebuild).
  func install() throws -> String {
    let dest = LocdProcess.makeDirectory()
    let r = try run(
      URL(fileURLWithPath: "/usr/bin/make"),
      [
        "-C", Binaries.packageRoot.path, "install-files", "INSTALL_FROM=\(Binaries.buildDirectory.path)",
        "DESTDIR=\(dest)", "PREFIX=/usr",
      ])
    guard r.status == 0 else { throw HarnessError("make install-files: \(r.stderr)") }
    return dest
  }

  @Test func installPutsEverythingInPlaceAndUninstallRemovesIt() throws {
    let dest = try install()
    for path in [
      "usr/bin/locd", "usr/bin/locctl", "usr/lib/systemd/system/locd.service",
      "usr/lib/systemd/system/locd.socket",
      "usr/lib/sysusers.d/locd.conf", "etc/locd/locd.conf", "usr/share/man/man8/locd.8",
      "usr/share/man/man1/locctl.1",
      "usr/share/man/man5/locd.conf.5", "usr/share/dbus-1/system.d/org.freedesktop.GeoClue2.locd.conf",
      "usr/share/locd/geoclue/org.freedesktop.GeoClue2.service", "usr/share/locd/geoclue/locd-geoclue.conf",
    ] {
      #expect(FileManager.default.fileExists(atPath: dest + "/" + path), "\(path) missing")
    }
    let unit = try String(contentsOfFile: dest + "/usr/lib/systemd/system/locd.service", encoding: .utf8)
    #expect(unit.contains("ExecStart=/usr/bin/locd\n"))
    // The example configuration is valid as shipped.
    let check = try run(Binaries.locd, ["--config", dest + "/etc/locd/locd.conf", "--check-config"])
    #expect(check.status == 0, "\(check.stderr)")
    let r = try run(
      URL(fileURLWithPath: "/usr/bin/make"),
      ["-C", Binaries.packageRoot.path, "uninstall", "DESTDIR=\(dest)", "PREFIX=/usr"])
    #expect(r.status == 0)
    #expect(!FileManager.default.fileExists(atPath: dest + "/usr/bin/locd"))
    #expect(!FileManager.default.fileExists(atPath: dest + "/usr/lib/systemd/system/locd.service"))
    // The administrator's configuration is kept.
    #expect(FileManager.default.fileExists(atPath: dest + "/etc/locd/locd.conf"))
  }

  /// The units with ExecStart pointing at the built binary, and a MANPATH holding our
  /// pages, so `systemd-analyze verify` can check both.
  func unitsForAnalysis() throws -> (directory: String, manpath: String) {
    let dest = try install()
    let dir = dest + "/units"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let unit = try String(contentsOfFile: dest + "/usr/lib/systemd/system/locd.service", encoding: .utf8)
      .replacingOccurrences(of: "/usr/bin/locd", with: dest + "/usr/bin/locd")
    try unit.write(toFile: dir + "/locd.service", atomically: true, encoding: .utf8)
    try FileManager.default.copyItem(
      atPath: dest + "/usr/lib/systemd/system/locd.socket", toPath: dir + "/locd.socket")
    return (dir, dest + "/usr/share/man")
  }

  @Test func systemdAnalyzeVerifyPasses() throws {
    let (dir, manpath) = try unitsForAnalysis()
    let r = try run(
      URL(fileURLWithPath: "/usr/bin/systemd-analyze"),
      ["verify", dir + "/locd.service", dir + "/locd.socket"],
      environment: ["MANPATH": manpath])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr.isEmpty, "\(r.stderr)")
  }

  /// locd-session's user unit, as the user manager would load it.
  @Test func theSessionUserUnitVerifies() throws {
    let dest = try install()
    let dir = dest + "/user-units"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let unit = try String(
      contentsOfFile: dest + "/usr/lib/systemd/user/locd-session.service", encoding: .utf8
    )
    .replacingOccurrences(of: "/usr/bin/locd-session", with: dest + "/usr/bin/locd-session")
    #expect(
      unit.contains("WantedBy=graphical-session.target") && unit.contains("PartOf=graphical-session.target"))
    try unit.write(toFile: dir + "/locd-session.service", atomically: true, encoding: .utf8)
    // A user manager needs its runtime directory (XDG_RUNTIME_DIR, mode 0700).
    let runtime = dest + "/run"
    mkdir(runtime, 0o700)
    let r = try run(
      URL(fileURLWithPath: "/usr/bin/systemd-analyze"), ["verify", "--user", dir + "/locd-session.service"],
      environment: ["MANPATH": dest + "/usr/share/man", "XDG_RUNTIME_DIR": runtime])
    #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
  }

  @Test func securityExposureIsAtMostTwo() throws {
    let (dir, _) = try unitsForAnalysis()
    let r = try run(
      URL(fileURLWithPath: "/usr/bin/systemd-analyze"),
      ["security", "--offline=true", dir + "/locd.service"],
      environment: ["SYSTEMD_COLORS": "0"])
    let line = try #require(r.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") })
    let score = try #require(
      line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) })
    #expect(score <= 2.0, "\(line)")
  }

  /// The unit as it runs with the GeoClue2 face: the shipped drop-in in locd.service.d next
  /// to it (systemd-analyze reads drop-ins from there), verified and scored like the unit.
  @Test func withTheGeoClueDropInTheUnitVerifiesAndExposureStaysAtMostTwo() throws {
    let (dir, manpath) = try unitsForAnalysis()
    try FileManager.default.createDirectory(
      atPath: dir + "/locd.service.d", withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: Binaries.packageRoot.path + "/systemd/locd-geoclue.conf",
      toPath: dir + "/locd.service.d/geoclue.conf")
    let verify = try run(
      URL(fileURLWithPath: "/usr/bin/systemd-analyze"),
      ["verify", dir + "/locd.service", dir + "/locd.socket"],
      environment: ["MANPATH": manpath])
    #expect(verify.status == 0 && verify.stderr.isEmpty, "\(verify.stderr)")
    let r = try run(
      URL(fileURLWithPath: "/usr/bin/systemd-analyze"),
      ["security", "--offline=true", dir + "/locd.service"],
      environment: ["SYSTEMD_COLORS": "0"])
    let line = try #require(r.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") })
    let score = try #require(
      line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) })
    #expect(score <= 2.0, "\(line)")
  }
}
