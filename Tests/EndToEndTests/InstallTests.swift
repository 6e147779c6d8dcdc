import Foundation
import Glibc
import Testing

/// `make install-files` and `make uninstall` into a temporary DESTDIR, with the debug binaries
/// (no rebuild); the layout is the one README.md's "Installing" and NEWS describe.
@Suite struct InstallTests {
  /// Runs `make ARGUMENTS` in the package root.
  func make(_ arguments: [String]) throws -> Completed {
    try run(URL(fileURLWithPath: "/usr/bin/make"), ["-s", "-C", Binaries.packageRoot.path] + arguments)
  }

  /// Installs into a fresh DESTDIR and returns it.
  func install(prefix: String, extra: [String] = []) throws -> String {
    let dest = LocdProcess.makeDirectory()
    let r = try make(
      [
        "install-files", "INSTALL_FROM=\(Binaries.buildDirectory.path)", "DESTDIR=\(dest)",
        "PREFIX=\(prefix)",
      ] + extra)
    guard r.status == 0 else { throw HarnessError("make install-files: \(r.stderr)") }
    return dest
  }

  /// Every file (not directory) under `root`, relative to it, and every empty directory.
  func tree(_ root: String) throws -> (files: Set<String>, emptyDirectories: [String]) {
    var files: Set<String> = []
    var empty: [String] = []
    let fm = FileManager.default
    let walker = try #require(fm.enumerator(atPath: root))
    while let relative = walker.nextObject() as? String {
      var isDirectory: ObjCBool = false
      _ = fm.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory)
      if !isDirectory.boolValue {
        files.insert(relative)
      } else if try fm.contentsOfDirectory(atPath: root + "/" + relative).isEmpty {
        empty.append(relative)
      }
    }
    return (files, empty)
  }

  /// The guides in docs/ that the man pages point to (TIMERS.md and the others).
  func guides() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: Binaries.packageRoot.path + "/docs")
      .filter { $0.hasSuffix(".md") }
  }

  /// What the one prefix rule puts where: everything under PREFIX (lib/ for what systemd
  /// reads, share/ for data, documentation and man pages), the configuration under /etc.
  func expectedFiles(prefix: String) throws -> Set<String> {
    let p = String(prefix.dropFirst())
    // dbus-daemon and polkitd read /usr/share and /etc only: the package's files go to the
    // first, any other PREFIX's to the second (issue 41).
    let bus = prefix == "/usr" ? "usr/share/dbus-1/system.d" : "etc/dbus-1/system.d"
    let polkit = prefix == "/usr" ? "usr/share/polkit-1/rules.d" : "etc/polkit-1/rules.d"
    var files: Set<String> = [
      "\(p)/bin/locd", "\(p)/bin/locctl", "\(p)/bin/locd-session",
      // locd-session: its user unit where the user manager looks under PREFIX, and its
      // Settings backend's .portal file (docs/LIGHTDARK.md).
      "\(p)/lib/systemd/user/locd-session.service", "\(p)/share/xdg-desktop-portal/portals/locd.portal",
      "\(p)/share/man/man1/locd-session.1",
      "\(p)/share/locd/timezone-boundaries.bin",
      "\(p)/lib/systemd/system/locd.service", "\(p)/lib/systemd/system/locd.socket",
      "\(p)/lib/sysusers.d/locd.conf",
      // The GeoClue2 face: its bus policy, and its activation file and unit drop-in to copy
      // into place when it is enabled (docs/GEOCLUE.md).
      "\(bus)/org.freedesktop.GeoClue2.locd.conf",
      // The compass: iio-sensor-proxy's Compass object opened to locd (docs/SOURCES.md).
      "\(bus)/net.hadess.SensorProxy.locd.conf",
      // polkit lets locd's user set the time zone and set up a modem's location.
      "\(polkit)/50-locd.rules",
      "\(p)/share/locd/geoclue/org.freedesktop.GeoClue2.service", "\(p)/share/locd/geoclue/locd-geoclue.conf",
      // chrony's unit drop-in that lets locd's group send it time samples (docs/TIME.md).
      "\(p)/share/locd/chrony/locd-refclock.conf",
      "\(p)/share/man/man1/locctl.1", "\(p)/share/man/man5/locd.conf.5", "\(p)/share/man/man8/locd.8",
      "\(p)/share/doc/locd/LICENSE", "\(p)/share/doc/locd/NOTICE", "\(p)/share/doc/locd/NEWS",
      "\(p)/share/bash-completion/completions/locctl", "\(p)/share/zsh/site-functions/_locctl",
      "\(p)/share/fish/vendor_completions.d/locctl.fish",
      "etc/locd/locd.conf",
    ]
    for guide in try guides() { files.insert("\(p)/share/doc/locd/\(guide)") }
    return files
  }

  @Test(arguments: ["/usr/local", "/usr"])
  func layoutFollowsThePrefixWithNoEmptyDirectory(prefix: String) throws {
    let dest = try install(prefix: prefix)
    let (files, empty) = try tree(dest)
    let expected = try expectedFiles(prefix: prefix)
    #expect(files.subtracting(expected).sorted() == [], "installed but not expected")
    #expect(expected.subtracting(files).sorted() == [], "expected but not installed")
    #expect(empty == [], "empty directories")
    let unit = try String(contentsOfFile: "\(dest)\(prefix)/lib/systemd/system/locd.service", encoding: .utf8)
    #expect(unit.contains("ExecStart=\(prefix)/bin/locd\n"))
    let session = try String(
      contentsOfFile: "\(dest)\(prefix)/lib/systemd/user/locd-session.service", encoding: .utf8)
    #expect(session.contains("ExecStart=\(prefix)/bin/locd-session\n"))
    // Every page the unit's Documentation= names is installed.
    let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix("Documentation=") })
    for reference in line.dropFirst("Documentation=".count).split(separator: " ") {
      // man:locd.conf(5) -> share/man/man5/locd.conf.5
      let name = reference.dropFirst("man:".count).split(separator: "(")
      let section = try #require(name.last?.dropLast())
      let page = "\(dest)\(prefix)/share/man/man\(section)/\(name[0]).\(section)"
      #expect(FileManager.default.fileExists(atPath: page), "\(reference): \(page)")
    }
  }

  /// A prefix systemd does not search gets a note that says which variable to set.
  @Test(arguments: [("/opt/locd", true), ("/usr/local", false), ("/usr", false)])
  func anotherPrefixIsToldWhereSystemdLooks(prefix: String, noted: Bool) throws {
    let dest = LocdProcess.makeDirectory()
    let r = try make([
      "install-files", "INSTALL_FROM=\(Binaries.buildDirectory.path)", "DESTDIR=\(dest)", "PREFIX=\(prefix)",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let note =
      "systemd does not look for units in \(prefix)/lib/systemd/system; set SYSTEMDDIR=/etc/systemd/system"
    #expect(r.stdout.contains(note) == noted, "\(r.stdout)")
    // xdg-desktop-portal 1.16 reads .portal files from /usr/share only.
    #expect(
      r.stdout.contains("xdg-desktop-portal 1.16 reads .portal files") == (prefix != "/usr"), "\(r.stdout)")
  }

  @Test func uninstallRemovesExactlyWhatInstallPutAndKeepsTheConfiguration() throws {
    let dest = try install(prefix: "/usr/local")
    let config = dest + "/etc/locd/locd.conf"
    let edited = "[Daemon]\nLogLevel=debug\n"
    try edited.write(toFile: config, atomically: false, encoding: .utf8)
    // A second install keeps the administrator's configuration.
    let again = try make([
      "install-files", "INSTALL_FROM=\(Binaries.buildDirectory.path)", "DESTDIR=\(dest)", "PREFIX=/usr/local",
    ])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(try String(contentsOfFile: config, encoding: .utf8) == edited)
    let r = try make(["uninstall", "DESTDIR=\(dest)", "PREFIX=/usr/local"])
    #expect(r.status == 0, "\(r.stderr)")
    let (files, _) = try tree(dest)
    #expect(files == ["etc/locd/locd.conf"])
    #expect(try String(contentsOfFile: config, encoding: .utf8) == edited)
    // The directories only locd uses are gone too.
    for dir in ["usr/local/share/locd", "usr/local/share/doc/locd"] {
      #expect(!FileManager.default.fileExists(atPath: dest + "/" + dir), "\(dir) left behind")
    }
  }

  /// ELF section names of a binary (readelf from binutils, which swift build needs anyway).
  func sections(_ path: String) throws -> [String] {
    let r = try run(URL(fileURLWithPath: "/usr/bin/readelf"), ["--section-headers", "--wide", path])
    try #require(r.status == 0, "\(r.stderr)")
    return r.stdout.split(separator: "\n").compactMap { line in
      guard let open = line.firstIndex(of: "]") else { return nil }
      return line[line.index(after: open)...].split(separator: " ").first.map(String.init)
    }
  }

  @Test func installedBinariesAreStrippedUnlessPackagingAsksNotTo() throws {
    let built = try sections(Binaries.locd.path)
    // The debug build carries symbols and DWARF; otherwise this test could not fail.
    try #require(built.contains(".symtab") && built.contains(".debug_info"))
    let stripped = try install(prefix: "/usr")
    let installed = try sections(stripped + "/usr/bin/locd")
    #expect(installed.contains(".text"))
    #expect(!installed.contains(".symtab"))
    #expect(installed.filter { $0.hasPrefix(".debug") } == [])
    // debian/rules installs with INSTALL_STRIP= so that dh_strip keeps the debug information.
    let kept = try install(prefix: "/usr", extra: ["INSTALL_STRIP="])
    #expect(try sections(kept + "/usr/bin/locd").contains(".debug_info"))
  }

  @Test func docDirectoryCarriesTheLicenceAndTheBoundaryDataNotice() throws {
    let dest = try install(prefix: "/usr/local")
    let doc = dest + "/usr/local/share/doc/locd/"
    // LICENSE is Debian's copy of the Apache License 2.0, unchanged.
    let debian = try #require(FileManager.default.contents(atPath: "/usr/share/common-licenses/Apache-2.0"))
    #expect(FileManager.default.contents(atPath: doc + "LICENSE") == debian)
    let notice = try String(contentsOfFile: doc + "NOTICE", encoding: .utf8)
      .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(notice.contains("Copyright 2026 the locd authors"))
    #expect(notice.contains("Open Database License (ODbL) 1.0"))
    #expect(notice.contains("OpenStreetMap contributors"))
    // The notice names the release the installed boundary file says it was built from.
    let version = try run(
      Binaries.locctl, ["tz", "--version"], environment: ["LOCD_DATA_DIR": dest + "/usr/local/share/locd"])
    #expect(version.status == 0, "\(version.stderr)")
    let boundaries = try #require(version.stdout.split(separator: "\n").first { $0.hasPrefix("boundaries:") })
    let words = boundaries.split(separator: " ")
    let at = try #require(words.firstIndex(of: "timezone-boundary-builder"))
    let release = try #require(words.dropFirst(at + 1).first)
    #expect(notice.contains("timezone-boundary-builder release \(release)"), "\(boundaries)")
  }

  /// debian/changelog, NEWS and `locd --version` name the same version.
  @Test func packageVersionMatchesTheProgramAndNews() throws {
    let r = try run(Binaries.locd, ["--version"])
    let program = try #require(r.stdout.split(separator: "\n").first?.split(separator: " ").dropFirst().first)
    let changelog = try String(
      contentsOfFile: Binaries.packageRoot.path + "/debian/changelog", encoding: .utf8)
    // First line: "locd (VERSION) unstable; urgency=medium"; a native package has no revision.
    let first = try #require(changelog.split(separator: "\n").first)
    #expect(first.hasPrefix("locd (\(program)) "), "\(first)")
    let news = try String(contentsOfFile: Binaries.packageRoot.path + "/NEWS", encoding: .utf8)
    #expect(
      news.split(separator: "\n").contains { $0.hasPrefix("\(program) (") }, "NEWS has no \(program) section")
  }

  /// locd(8)'s synopsis names every option `locd --help` lists (it lacked --timers-dir,
  /// --clock and --exit-at-end).
  @Test func locdsSynopsisNamesEveryOptionOfItsHelp() throws {
    let help = try run(Binaries.locd, ["--help"])
    #expect(help.status == 0)
    let options = help.stdout.split(separator: "\n").compactMap { line -> String? in
      let words = line.split(separator: " ")
      guard let first = words.first, first.hasPrefix("--") else { return nil }
      return String(first)
    }
    #expect(options.count >= 10, "\(options)")
    let page = try String(contentsOfFile: Binaries.packageRoot.path + "/docs/man/locd.8", encoding: .utf8)
    let start = try #require(page.range(of: ".SH SYNOPSIS"))
    let end = try #require(page.range(of: ".SH DESCRIPTION"))
    let synopsis = page[start.upperBound..<end.lowerBound].replacingOccurrences(of: "\\-", with: "-")
    for option in options {
      #expect(synopsis.contains(option), "locd(8)'s synopsis lacks \(option)")
    }
  }

  @Test func makeDocsCatchesAFormFeedInAManPage() throws {
    let clean = try make(["docs"])
    #expect(clean.status == 0, "\(clean.stdout)\(clean.stderr)")
    // The defect locd.conf(5) had: "\fB" written as a form feed byte and "B".
    let dir = LocdProcess.makeDirectory()
    let page = try String(
      contentsOfFile: Binaries.packageRoot.path + "/docs/man/locd.conf.5", encoding: .utf8)
    let broken = page.replacingOccurrences(of: "\\fB15min\\fR", with: "\u{0C}B15min\u{0C}R")
    try #require(broken != page)
    try broken.write(toFile: dir + "/locd.conf.5", atomically: false, encoding: .utf8)
    let r = try make(["docs", "MAN_PAGES=\(dir)/locd.conf.5"])
    #expect(r.status != 0)
    #expect(r.stdout.contains("control characters"), "\(r.stdout)")
    #expect(r.stdout.contains("^LB15min^LR"), "\(r.stdout)")
  }
}
