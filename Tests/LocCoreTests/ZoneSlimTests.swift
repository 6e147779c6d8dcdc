import Foundation
import LocCore
import Testing

/// The daemon keeps every zone's TZif bytes without the version-1 block
/// (`ZoneRules.withoutVersion1Data`). Held to the files as Debian's tzdata ships them: for
/// every zone, the slimmed bytes read back to the same rules as the whole file (offset,
/// abbreviation and daylight saving just before and at every transition from 1850 to 2100,
/// and yearly to 2200, where the footer's rule takes over), and are smaller.
@Suite struct ZoneSlimTests {
  static let root = "/usr/share/zoneinfo"

  /// Every TZif file under the zoneinfo directory but the leap-second (`right/`) and
  /// `posix/` copies: the zones and links tzdata installs.
  static func zoneFiles() -> [String] {
    guard let walk = FileManager.default.enumerator(atPath: root) else { return [] }
    var names: [String] = []
    for case let name as String in walk where !name.hasPrefix("right/") && !name.hasPrefix("posix/") {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isDirectory),
        !isDirectory.boolValue, let head = FileManager.default.contents(atPath: root + "/" + name)?.prefix(4),
        Array(head) == Array("TZif".utf8)
      else { continue }
      names.append(name)
    }
    return names.sorted()
  }

  @Test func everyZoneReadsTheSameWithoutItsVersion1Block() throws {
    let names = Self.zoneFiles()
    try #require(names.count > 300, "tzdata's zoneinfo (the tzdata package)")
    var slimmedBytes = 0
    var wholeBytes = 0
    for name in names {
      let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.root + "/" + name)))
      let slim = ZoneRules.withoutVersion1Data(bytes)
      let whole = try ZoneRules(name: name, tzif: bytes)
      let rules = try ZoneRules(name: name, tzif: slim)
      wholeBytes += bytes.count
      slimmedBytes += slim.count
      var instants: [Instant] = []
      var t = Instant(iso8601: "1850-01-01T00:00:00Z")!
      let end = Instant(iso8601: "2100-01-01T00:00:00Z")!
      while let next = whole.nextTransition(after: t), next.instant < end {
        instants += [next.instant.adding(seconds: -1), next.instant]
        t = next.instant
      }
      for year in stride(from: 1850, through: 2200, by: 1) {
        instants.append(Instant(iso8601: "\(year)-07-01T00:00:00Z")!)
      }
      for i in instants {
        guard
          whole.utcOffsetSeconds(at: i) == rules.utcOffsetSeconds(at: i),
          whole.abbreviation(at: i) == rules.abbreviation(at: i),
          whole.isDaylightSaving(at: i) == rules.isDaylightSaving(at: i),
          whole.nextTransition(after: i)?.instant == rules.nextTransition(after: i)?.instant
        else {
          Issue.record("\(name) differs at \(i.iso8601())")
          break
        }
      }
    }
    // Debian's files carry both blocks, so the slimmed ones are smaller (a third, measured).
    #expect(slimmedBytes < wholeBytes * 3 / 4, "\(slimmedBytes) of \(wholeBytes) bytes")
  }

  @Test func otherBytesAreLeftAsTheyAre() {
    // Version 1 (no 64-bit block to keep), not TZif, and a header whose counts run past
    // the end: nothing is cut, and the reader judges them as before.
    var v1 = Array("TZif".utf8) + [0] + [UInt8](repeating: 0, count: 15)
    v1 += [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 4]
    v1 += [0, 0, 0, 0, 0, 0] + Array("UTC".utf8) + [0]
    #expect(ZoneRules.withoutVersion1Data(v1) == v1)
    let text = Array("not a zone file at all, but long enough to hold a header.".utf8)
    #expect(ZoneRules.withoutVersion1Data(text) == text)
    var cut = Array("TZif2".utf8) + [UInt8](repeating: 0, count: 15)
    cut += [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 1, 0, 0, 0, 4]
    #expect(ZoneRules.withoutVersion1Data(cut) == cut)
  }
}
