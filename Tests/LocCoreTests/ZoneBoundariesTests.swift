import Foundation
import LocCore
import Testing

/// The committed boundary file and the reference points, read once for every test here.
enum TimeZoneData {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  static let file: [UInt8] = Array(
    try! Data(contentsOf: root.appendingPathComponent("data/timezone-boundaries.bin")))

  /// One row of Tests/Fixtures/tz/points.csv.
  struct Point {
    var latitude: Double
    var longitude: Double
    var zone: String
    var kind: String
  }

  static let points: [Point] = {
    let text = try! String(
      contentsOf: root.appendingPathComponent("Tests/Fixtures/tz/points.csv"), encoding: .utf8)
    return text.split(separator: "\n").dropFirst().map { line in
      let f = line.split(separator: ",", omittingEmptySubsequences: false)
      return Point(latitude: Double(f[0])!, longitude: Double(f[1])!, zone: String(f[2]), kind: String(f[3]))
    }
  }()

  /// A little-endian UInt32 of the committed file's header (section offsets: docs/decisions/0004).
  static func headerField(_ at: Int) -> Int {
    (0..<4).reduce(0) { $0 | Int(file[at + $1]) << (8 * $1) }
  }

  /// Runs `body` with the boundaries over a copy of `bytes` (the committed file by default).
  static func with<T>(_ bytes: [UInt8] = file, _ body: (ZoneBoundaries) throws -> T) throws -> T {
    try bytes.withUnsafeBytes { raw in try body(try ZoneBoundaries(bytes: raw)) }
  }
}

@Suite struct ZoneBoundariesTests {
  @Test func headerRecordsTheReleases() throws {
    try TimeZoneData.with { b throws in
      #expect(b.boundaryRelease == "2026c")
      #expect(b.tzdataVersion == "2026c")
      #expect(b.zoneNames.contains("Europe/Oslo"))
      #expect(b.zoneNames.contains("Etc/GMT+12"))
      #expect(b.fileSize == TimeZoneData.file.count)
      #expect(b.fileSize <= 10_000_000)
    }
  }

  @Test func wholeFileVerifies() throws {
    try TimeZoneData.with { b throws in try b.verify() }
  }

  @Test func agreesWithTheReferencePoints() throws {
    var agree: [String: Int] = [:]
    var total: [String: Int] = [:]
    var misses: [String] = []
    try TimeZoneData.with { b throws in
      for p in TimeZoneData.points {
        let zone = try b.zoneName(at: Coordinate(lat: p.latitude, lon: p.longitude)!)
        total[p.kind, default: 0] += 1
        if zone == p.zone {
          agree[p.kind, default: 0] += 1
        } else {
          misses.append("\(p.kind) \(p.latitude),\(p.longitude): \(zone), expected \(p.zone)")
        }
      }
    }
    for kind in ["random", "border", "curated"] {
      print("tz agreement \(kind): \(agree[kind, default: 0])/\(total[kind, default: 0])")
    }
    #expect(total == ["random": 10000, "border": 2500, "curated": 40])
    // Built from the oracle's own boundary release (2026c), the file must agree at every
    // point, border points 100 m from a border included: a miss is a bug in the builder or
    // the lookup, not an approximation.
    #expect(misses == [])
  }

  // Expected zones from timezonefinder 9.0.0 with boundary release 2026c (the oracle of
  // Tests/Fixtures/tz), asked at these exact coordinates.
  @Test(arguments: [
    (90.0, 0.0, "Etc/GMT"), (90.0, 180.0, "Etc/GMT-12"), (90.0, 123.4, "Etc/GMT-8"),
    (-90.0, 0.0, "Antarctica/McMurdo"), (-90.0, 180.0, "Antarctica/McMurdo"),
    (-90.0, -180.0, "Antarctica/McMurdo"),
    (-90.0, 45.0, "Antarctica/McMurdo"), (0.0, 180.0, "Etc/GMT-12"), (0.0, -180.0, "Etc/GMT-12"),
    (-45.0, 180.0, "Etc/GMT-12"), (-45.0, -180.0, "Etc/GMT-12"), (65.5, -180.0, "Asia/Anadyr"),
    (65.5, 180.0, "Asia/Anadyr"), (0.0, -172.5, "Etc/GMT+12"), (0.0, -7.5, "Etc/GMT+1"),
    (0.0, 7.5, "Etc/GMT"),
    (-30.0, 97.5, "Etc/GMT-6"), (45.0, -30.0, "Etc/GMT+2"), (0.0, 0.0, "Etc/GMT"),
    (-60.0, -60.0, "Etc/GMT+4"),
    (89.999999, 179.999999, "Etc/GMT-12"), (-89.999999, -179.999999, "Antarctica/McMurdo"),
    (50.0, -172.5, "Etc/GMT+12"),
  ])
  func polesAntimeridianAndEdges(latitude: Double, longitude: Double, zone: String) throws {
    try TimeZoneData.with { b throws in
      #expect(try b.zoneName(at: Coordinate(lat: latitude, lon: longitude)!) == zone)
    }
  }

  @Test func everyCellCornerAndEdgeAnswers() throws {
    // Exact cell edges and corners, both poles and both spellings of the antimeridian.
    try TimeZoneData.with { b throws in
      for lat in stride(from: -90.0, through: 90.0, by: 7.0) {
        for lon in stride(from: -180.0, through: 180.0, by: 9.0) {
          _ = try b.zoneIndex(at: Coordinate(lat: lat, lon: lon)!)
        }
      }
      #expect(
        try b.zoneIndex(at: Coordinate(lat: 12.5, lon: -180)!)
          == b.zoneIndex(at: Coordinate(lat: 12.5, lon: 180)!))
    }
  }

  @Test func invalidCoordinatesNeverReachTheLookup() {
    #expect(Coordinate(lat: .nan, lon: 0) == nil)
    #expect(Coordinate(lat: 0, lon: .infinity) == nil)
    #expect(Coordinate(lat: 90.000001, lon: 0) == nil)
    #expect(Coordinate(lat: 0, lon: -180.000001) == nil)
  }
}

@Suite struct ZoneBoundariesCorruptionTests {
  static let probes: [Coordinate] =
    stride(from: -89.5, through: 89.5, by: 3.1).flatMap { lat in
      stride(from: -179.5, through: 179.5, by: 4.7).map { Coordinate(lat: lat, lon: $0)! }
    } + TimeZoneData.points.prefix(400).map { Coordinate(lat: $0.latitude, lon: $0.longitude)! }

  /// Looks up every probe; a corrupt file may answer or throw, but must not crash.
  static func probe(_ b: ZoneBoundaries) -> (answered: Int, failed: Int) {
    var answered = 0
    var failed = 0
    for c in probes {
      do {
        _ = try b.zoneIndex(at: c)
        answered += 1
      } catch {
        failed += 1
      }
    }
    return (answered, failed)
  }

  @Test(arguments: [0, 1, 8, 79, 80, 81, 4096, 300_000, -1])
  func truncatedFilesAreRejected(length: Int) {
    let n = length < 0 ? TimeZoneData.file.count + length : length
    let bytes = Array(TimeZoneData.file.prefix(n))
    #expect(throws: ZoneBoundaries.FormatError.self) { try TimeZoneData.with(bytes) { _ in () } }
  }

  @Test func truncationIsReportedAsSuch() {
    let bytes = Array(TimeZoneData.file.dropLast(1000))
    #expect(throws: ZoneBoundaries.FormatError.truncated(expected: bytes.count + 1000, actual: bytes.count)) {
      try TimeZoneData.with(bytes) { _ in () }
    }
  }

  @Test func foreignFilesAndVersionsAreRejected() {
    var bytes = TimeZoneData.file
    bytes[0] = UInt8(ascii: "X")
    #expect(throws: ZoneBoundaries.FormatError.notABoundaryFile) { try TimeZoneData.with(bytes) { _ in () } }
    bytes = TimeZoneData.file
    bytes[8] = 2
    #expect(throws: ZoneBoundaries.FormatError.unsupportedVersion(2)) {
      try TimeZoneData.with(bytes) { _ in () }
    }
    bytes = TimeZoneData.file + [0]
    #expect(throws: ZoneBoundaries.FormatError.self) { try TimeZoneData.with(bytes) { _ in () } }
  }

  @Test func badSectionTablesAndNamesAreRejected() {
    // Names offset past the end; a NUL in a zone name; grid size wrong.
    for (offset, value) in [(24, UInt8(0xFF)), (27, UInt8(0x7F)), (80, UInt8(0)), (36, UInt8(1))] {
      var bytes = TimeZoneData.file
      bytes[offset] = value
      #expect(throws: ZoneBoundaries.FormatError.self) { try TimeZoneData.with(bytes) { _ in () } }
    }
  }

  @Test func flippedBytesFailTheChecksumAndNeverCrashALookup() throws {
    var rng = SplitMix64(seed: 4)
    let count = TimeZoneData.file.count
    for _ in 0..<6 {
      var bytes = TimeZoneData.file
      for _ in 0..<200 {
        let at = 400_000 + Int(rng.next() % UInt64(count - 400_000))
        bytes[at] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
      }
      try TimeZoneData.with(bytes) { b throws in
        #expect(throws: ZoneBoundaries.FormatError.checksumMismatch) { try b.verify() }
        let r = Self.probe(b)
        #expect(r.answered + r.failed == Self.probes.count)
      }
    }
  }

  @Test func garbageNodesNeverCrashALookup() throws {
    // Every byte after the grid replaced by noise: lookups answer or throw, nothing worse.
    var rng = SplitMix64(seed: 7)
    var bytes = TimeZoneData.file
    let nodesStart = TimeZoneData.headerField(40)
    for i in nodesStart..<bytes.count { bytes[i] = UInt8(truncatingIfNeeded: rng.next()) }
    try TimeZoneData.with(bytes) { b throws in
      let r = Self.probe(b)
      #expect(r.failed > 0)
      #expect(throws: ZoneBoundaries.FormatError.self) { try b.verify() }
    }
  }

  @Test func garbageGridNeverCrashesALookup() throws {
    var rng = SplitMix64(seed: 9)
    var bytes = TimeZoneData.file
    let gridStart = TimeZoneData.headerField(32)
    for i in gridStart..<(gridStart + 259_200) { bytes[i] = UInt8(truncatingIfNeeded: rng.next()) }
    try TimeZoneData.with(bytes) { b throws in
      let r = Self.probe(b)
      #expect(r.failed > 0)
    }
  }
}
