import Dispatch
import Foundation
import Glibc
import LocCore
import LocSystem
import Testing

/// The shell's side of zone data: reading the zones the engine may need, watching for
/// tzdata updates, and boundary lookups from several threads.
@Suite struct ZoneDataTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

  /// A zone directory with Europe/Oslo copied from the system's tzdata.
  func zoneDirectory() throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "locd-zones-\(getpid())-\(UUID())")
    try FileManager.default.createDirectory(
      at: dir.appendingPathComponent("Europe"), withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: "/usr/share/zoneinfo/Europe/Oslo", toPath: dir.appendingPathComponent("Europe/Oslo").path)
    try Data("not a zone".utf8).write(to: dir.appendingPathComponent("Europe/Broken"))
    return dir.path
  }

  @Test func catalogHoldsBytesOrWhyNot() throws {
    let dir = try zoneDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let catalog = ZoneDatabase(directory: dir).catalog(names: [
      "Europe/Oslo", "Europe/Broken", "Mars/Base", "../x",
    ])
    let oslo = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/Europe/Oslo")))
    // Held without the version-1 block readers skip (ZoneSlimTests holds it to the whole
    // file's rules): Debian's file has both blocks, so the catalog's is smaller.
    let held = try #require(catalog.entries["Europe/Oslo"])
    #expect(held == .tzif(ZoneRules.withoutVersion1Data(oslo)))
    if case .tzif(let bytes) = held { #expect(bytes.count < oslo.count) }
    // Reading is the shell's part; whether the bytes are TZif is the engine's to find out.
    #expect(catalog.entries["Europe/Broken"] == .tzif(Array("not a zone".utf8)))
    #expect(catalog.entries["Mars/Base"] == .unreadable("unknown time zone 'Mars/Base'"))
    #expect(catalog.entries["../x"] == .unreadable("'../x' is not a time-zone name"))
    #expect(catalog.readable == 2)
  }

  @Test func zoneNamesAndDirectoriesToWatch() throws {
    let boundaries = try ZoneBoundaryFile(path: Self.root + "/data/timezone-boundaries.bin")
    let data = ZoneData(
      database: ZoneDatabase(directory: "/z"), boundaries: boundaries, systemZone: "Europe/Oslo")
    let names = data.zoneNames(configured: "Etc/GMT-3")
    #expect(Set(names).isSuperset(of: boundaries.boundaries.zoneNames))
    #expect(Set(names).isSuperset(of: ["Europe/Oslo", "UTC", "Etc/GMT-3"]))
    let catalog = ZoneCatalog([
      "UTC": .unreadable("x"), "Europe/Oslo": .unreadable("x"),
      "America/Argentina/Salta": .unreadable("x"),
    ])
    #expect(data.directories(of: catalog) == ["/z", "/z/America/Argentina", "/z/Europe"])
  }

  @Test func aReplacedZoneFileIsNoticedOnceItSettles() throws {
    let dir = try zoneDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let loop = try EventLoop()
    var changes = 0
    let watcher = try ZoneDataWatcher(
      loop: loop, directories: [dir, dir + "/Europe"], settle: .milliseconds(200)
    ) { changes += 1 }
    // As dpkg does it: a new file next to the old, renamed over it; then a second zone.
    let tokyo = try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/Asia/Tokyo"))
    try tokyo.write(to: URL(fileURLWithPath: dir + "/Europe/Oslo.dpkg-new"))
    #expect(rename(dir + "/Europe/Oslo.dpkg-new", dir + "/Europe/Oslo") == 0)
    try tokyo.write(to: URL(fileURLWithPath: dir + "/Europe/Paris"))
    let deadline = Date().addingTimeInterval(10)
    while changes == 0, Date() < deadline { loop.runOnce(timeoutMicroseconds: 50_000) }
    #expect(changes == 1)
    // Nothing more without a change.
    let quiet = Date().addingTimeInterval(0.5)
    while Date() < quiet { loop.runOnce(timeoutMicroseconds: 50_000) }
    #expect(changes == 1)
    withExtendedLifetime(watcher) {}
  }

  @Test func watchingNothingIsAnError() throws {
    let loop = try EventLoop()
    #expect(throws: Errno.self) {
      _ = try ZoneDataWatcher(loop: loop, directories: ["/nonexistent/zoneinfo"]) {}
    }
  }

  @Test func boundaryLookupsFromSeveralThreadsAgree() throws {
    // ZoneBoundaryFile is Sendable because it is immutable; lookups only read the mapping.
    let file = try ZoneBoundaryFile(path: Self.root + "/data/timezone-boundaries.bin")
    let points = (0..<2000).map { i in
      Coordinate(lat: Double(i % 170) - 85 + 0.37, lon: Double(i * 7 % 360) - 180 + 0.11)!
    }
    let serial = points.map { try? file.zoneName(at: $0) }
    let results = Results()
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      results.append(points.map { try? file.zoneName(at: $0) })
    }
    #expect(results.all.count == 8)
    for answers in results.all { #expect(answers == serial) }
    #expect(serial.compactMap { $0 }.count > 500)
  }
}

/// Answers collected from several threads (the lock makes it Sendable).
private final class Results: @unchecked Sendable {
  private let lock = NSLock()
  private var collected: [[String?]] = []
  func append(_ answers: [String?]) { lock.withLock { collected.append(answers) } }
  var all: [[String?]] { lock.withLock { collected } }
}
