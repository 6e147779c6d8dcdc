import LocCore
import LocSystem

/// `locbench tz [CSV] [--rounds N]`: time to the first lookup (open, map, validate, look up),
/// then lookups per second over the random points of Tests/Fixtures/tz/points.csv, single
/// thread; bench/30-tz.sh runs tzfpy and timezonefinder on the same points.
enum TzBenchmark: Benchmark {
  static let name = "tz"

  static func run(_ arguments: [String]) -> Int32 {
    let (path, rounds) = pathAndRounds(arguments, path: "Tests/Fixtures/tz/points.csv", rounds: 100)
    let points: [(lat: Double, lon: Double, zone: String)]
    do {
      points = try load(path)
    } catch {
      print("locbench tz: \(path): \(error)")
      return 1
    }
    guard let first = points.first else {
      print("locbench tz: \(path): no random points")
      return 1
    }

    // Time to first lookup, wall clock, and what it cost in resident memory.
    let rssBefore = residentKiB()
    let start = wallClock()
    let file: ZoneBoundaryFile
    let firstZone: Int
    do {
      file = try ZoneBoundaryFile.open()
      firstZone = try file.boundaries.zoneIndex(at: Coordinate(lat: first.lat, lon: first.lon)!)
    } catch {
      print("locbench tz: \(error)")
      return 1
    }
    let firstLookup = wallClock() - start
    let rssAfterFirst = residentKiB()
    let mappedAfterFirst = mappedResidentKiB(file.path)
    let boundaries = file.boundaries

    // One pass to check the answers and touch the pages, then the timed rounds (CPU time).
    var agree = 0
    for p in points where (try? boundaries.zoneName(at: Coordinate(lat: p.lat, lon: p.lon)!)) == p.zone {
      agree += 1
    }
    let mappedAfterAll = mappedResidentKiB(file.path)
    var checksum = firstZone
    let cpuStart = cpuClock()
    do {
      for _ in 0..<rounds {
        for p in points {
          guard let c = Coordinate(lat: p.lat, lon: p.lon) else { continue }
          checksum &+= try boundaries.zoneIndex(at: c)
        }
      }
    } catch {
      print("locbench tz: \(error)")
      return 1
    }
    let seconds = cpuClock() - cpuStart
    let lookups = Double(points.count * rounds)
    print("tz: \(points.count) random points x \(rounds) rounds, \(file.path) (\(boundaries.fileSize) bytes)")
    print("locd lookups/s \(Int(lookups / seconds)) (\(format(seconds / lookups * 1e9)) ns per lookup)")
    print("locd first lookup \(format(firstLookup * 1000)) ms (open, map, validate, one lookup)")
    print(
      "locd rss of the mapping \(mappedAfterFirst) KiB after first lookup, \(mappedAfterAll) KiB after all points; process +\(rssAfterFirst.file - rssBefore.file) KiB file-backed (code included), +\(rssAfterFirst.anonymous - rssBefore.anonymous) KiB heap at first lookup"
    )
    print("locd agreement \(agree)/\(points.count)")
    print("checksum \(checksum)")
    return 0
  }

  /// The `random` rows of points.csv (lat,lon,tz,kind).
  static func load(_ path: String) throws -> [(lat: Double, lon: Double, zone: String)] {
    let text = String(decoding: try FileIO.read(path: path), as: UTF8.self)
    var out: [(lat: Double, lon: Double, zone: String)] = []
    for line in text.split(separator: "\n").dropFirst() {
      let f = line.split(separator: ",")
      guard f.count == 4, f[3] == "random", let lat = Double(f[0]), let lon = Double(f[1]) else { continue }
      out.append((lat, lon, String(f[2])))
    }
    return out
  }

  static func cpuClock() -> Double {
    Double(Clocks.processCPUNanoseconds()) / 1e9
  }

  static func wallClock() -> Double {
    Double(Clocks.nanoseconds(.monotonic)) / 1e9
  }

  /// Resident file-backed and anonymous memory from /proc/self/status (proc(5)), in KiB.
  static func residentKiB() -> (file: Int, anonymous: Int) {
    guard let bytes = try? FileIO.read(path: "/proc/self/status", limit: 1 << 16) else { return (0, 0) }
    var file = 0
    var anonymous = 0
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
      let kib = Int(line.filter { $0.isNumber }) ?? 0
      if line.hasPrefix("RssFile:") { file = kib }
      if line.hasPrefix("RssAnon:") { anonymous = kib }
    }
    return (file, anonymous)
  }

  /// Resident KiB of the mapping of `path`, from /proc/self/smaps (proc(5)).
  static func mappedResidentKiB(_ path: String) -> Int {
    guard let bytes = try? FileIO.read(path: "/proc/self/smaps", limit: 16 << 20) else { return -1 }
    var inMapping = false
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
      if let first = line.first, first.isHexDigit, line.contains("-"), !line.hasPrefix("Rss") {
        inMapping = line.hasSuffix(path)
      } else if inMapping, line.hasPrefix("Rss:") {
        return Int(line.filter { $0.isNumber }) ?? -1
      }
    }
    return -1
  }

  static func format(_ value: Double) -> String {
    let scaled = (value * 100).rounded() / 100
    return String(scaled)
  }
}
