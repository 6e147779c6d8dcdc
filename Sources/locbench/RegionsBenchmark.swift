import LocCore
import LocSystem

/// `locbench regions [--regions N] [--fixes N] [--brute-fixes N]`: circular-region monitoring
/// with N regions (default 100,000) in three layouts — spread over the world, crowded in one
/// city, crowded on the North Pole and across the antimeridian — each measured side by side
/// with a brute force (every region's exact distance on every fix): registration time, heap
/// bytes per region (glibc's own accounting), per-fix time along a 1 Hz drive and for
/// scattered fixes, the first fix after registering (which decides every region once), and
/// the acquisition hint. bench/70-regions.sh repeats runs and prints medians. `--socket`:
/// registrations over the built locd's socket, a second and in writes (RegionsBenchmark+Socket).
enum RegionsBenchmark: Benchmark {
  static let name = "regions"

  struct Layout {
    var name: String
    /// Centre and spread (metres) of the crowd; nil: the whole sphere.
    var crowd: [(Coordinate, Double)]?
    var radii: (Double, Double)
  }

  static let layouts = [
    Layout(name: "world", crowd: nil, radii: (10, 100_000)),
    Layout(name: "city", crowd: [(Coordinate(lat: 59.91, lon: 10.75)!, 30_000)], radii: (50, 1000)),
    Layout(
      name: "pole+antimeridian",
      crowd: [(Coordinate(lat: 90, lon: 0)!, 30_000), (Coordinate(lat: 10, lon: 180)!, 30_000)],
      radii: (50, 1000)),
  ]

  static func run(_ arguments: [String]) -> Int32 {
    if arguments.contains("--socket") { return socket(arguments) }
    var count = 100_000
    var fixes = 10_000
    var bruteFixes = 100
    var i = 0
    while i + 1 < arguments.count {
      guard let n = Int(arguments[i + 1]), n > 0 else { break }
      switch arguments[i] {
      case "--regions": count = n
      case "--fixes": fixes = n
      case "--brute-fixes": bruteFixes = n
      default: break
      }
      i += 2
    }
    print("regions: \(count) regions, \(fixes) fixes a pattern, brute force on \(bruteFixes)")
    for layout in layouts { measure(layout, count: count, fixes: fixes, bruteFixes: bruteFixes) }
    return 0
  }

  static func measure(_ layout: Layout, count: Int, fixes: Int, bruteFixes: Int) {
    var rng = Generator(seed: 70)
    let made = (0..<count).map { k in makeRegion(k, layout, &rng) }
    var config = RegionMonitor.Configuration()
    config.maxRegions = max(config.maxRegions, count)
    config.maxRegionsPerOwner = max(config.maxRegionsPerOwner, count)
    var monitor = RegionMonitor(configuration: config)
    let start = Instant(secondsSinceEpoch: 1_780_000_000)
    let heapBefore = heapInUse()
    let t0 = cpuSeconds()
    for (owner, region) in made { _ = monitor.handle(.register(owner, region), at: start) }
    let registration = cpuSeconds() - t0
    let heapAfter = heapInUse()
    let tag = layout.name
    print("\(tag) registration_ms \(fmt(registration * 1000)) (target <= 200 ms)")
    if let before = heapBefore, let after = heapAfter {
      print("\(tag) heap_bytes_per_region \(fmt(Double(after - before) / Double(count))) (target <= 256)")
    }
    print("\(tag) structure_bytes_per_region \(fmt(Double(monitor.memoryBytes) / Double(count)))")

    let drive = drivePath(layout, fixes, &rng)
    let scattered = (0..<fixes).map { _ in (place(layout, &rng), rng.logUniform(3, 50)) }
    // The first fix decides every region once (all start unknown).
    let t1 = monotonicSeconds()
    _ = monitor.handle(.fix(drive[0].0, accuracy: Meters(drive[0].1)), at: start)
    print("\(tag) first_fix_ms \(fmt((monotonicSeconds() - t1) * 1000)) (decides all \(count) regions)")
    var now = start
    for (pattern, path) in [("drive", drive), ("scattered", scattered)] {
      let before = monitor.counters
      var samples: [Double] = []
      samples.reserveCapacity(path.count)
      for (c, accuracy) in path {
        now = now.adding(seconds: 1)
        let t = monotonicSeconds()
        _ = monitor.handle(.fix(c, accuracy: Meters(accuracy)), at: now)
        samples.append((monotonicSeconds() - t) * 1e6)
      }
      let after = monitor.counters
      let n = Double(path.count)
      print(
        "\(tag) \(pattern)_fix_us median \(fmt(percentile(samples, 0.5))) p99 \(fmt(percentile(samples, 0.99)))"
          + " (target median <= 5 us); per fix: \(fmt(Double(after.cellsProbed - before.cellsProbed) / n)) cells,"
          + " \(fmt(Double(after.candidates - before.candidates) / n)) candidates,"
          + " \(fmt(Double(after.distances - before.distances) / n)) distances; active \(monitor.activeCount)"
      )
      let brute = bruteForce(made, Array(path.prefix(bruteFixes)))
      print("\(tag) \(pattern)_brute_fix_us median \(fmt(brute))")
    }
    var hints: [Double] = []
    var policy = FixHintPolicy()
    policy.ceiling = .seconds(15 * 60)
    for (c, accuracy) in scattered.prefix(1000) {
      now = now.adding(seconds: 1)
      _ = monitor.handle(.fix(c, accuracy: Meters(accuracy)), at: now)
      let t = monotonicSeconds()
      _ = monitor.acquisitionHint(at: now, policy: policy)
      hints.append((monotonicSeconds() - t) * 1e6)
    }
    if let hint = monitor.acquisitionHint(at: now, policy: policy) {
      print(
        "\(tag) hint_us median \(fmt(percentile(hints, 0.5))) p99 \(fmt(percentile(hints, 0.99)));"
          + " last: due +\(fmt(hint.due.seconds(since: now))) s because \(hint.because)")
    }
  }

  /// The brute force: every region, the exact distance and the rule, for each fix; the
  /// median microseconds per fix.
  static func bruteForce(_ regions: [(RegionOwner, CircularRegion)], _ path: [(Coordinate, Double)]) -> Double
  {
    var samples: [Double] = []
    var inside = 0
    for (c, accuracy) in path {
      let m = max(3 * accuracy, 5)
      let t = monotonicSeconds()
      for (_, region) in regions where c.distance(to: region.centre).value <= region.radius.value - m {
        inside += 1
      }
      samples.append((monotonicSeconds() - t) * 1e6)
    }
    precondition(inside >= 0)
    return percentile(samples, 0.5)
  }

  static func makeRegion(_ k: Int, _ layout: Layout, _ rng: inout Generator) -> (RegionOwner, CircularRegion)
  {
    // Ids as apps write them: a UUID is 36 bytes, longer than Swift's 15-byte inline strings.
    let id = "\(hex(rng.next()))-\(hex(rng.next()))".prefix(36)
    let region = try! CircularRegion(
      id: RegionID(String(id)), centre: place(layout, &rng),
      radius: Meters(rng.logUniform(layout.radii.0, layout.radii.1)),
      dwell: k % 4 == 0 ? .seconds(300) : nil)
    return (RegionOwner(UInt32(k % 50)), region)
  }

  static func hex(_ v: UInt64) -> String {
    let s = String(v, radix: 16)
    return String(repeating: "0", count: 16 - s.count) + s
  }

  static func place(_ layout: Layout, _ rng: inout Generator) -> Coordinate {
    guard let crowd = layout.crowd else {
      return Coordinate(lat: Maths.asin(rng.uniform(-1, 1)) * 180 / .pi, lon: rng.uniform(-180, 180))!
    }
    let (centre, spread) = crowd[Int(rng.next() % UInt64(crowd.count))]
    let distance = spread * rng.uniform(0, 1).squareRoot()
    if centre.latitude.value == 90 {
      // Coordinate.destination from the pole itself has no meaningful bearing: place the
      // point by its colatitude and a uniform longitude.
      let lat = 90 - distance / Coordinate.meanEarthRadius.value * 180 / .pi
      return Coordinate(lat: lat, lon: rng.uniform(-180, 180))!
    }
    return centre.destination(distance: Meters(distance), bearing: Degrees(rng.uniform(0, 360)))
  }

  /// A 1 Hz drive at 25 m/s that turns now and then, from a random point of the layout.
  static func drivePath(_ layout: Layout, _ n: Int, _ rng: inout Generator) -> [(Coordinate, Double)] {
    var c = place(layout, &rng)
    var heading = rng.uniform(0, 360)
    var out: [(Coordinate, Double)] = []
    for _ in 0..<n {
      if rng.uniform(0, 1) < 0.02 { heading = rng.uniform(0, 360) }
      c = c.destination(distance: 25, bearing: Degrees(heading))
      out.append((c, rng.logUniform(3, 30)))
    }
    return out
  }

  /// Bytes in use on glibc's heap (malloc_info(3): arena bytes minus free chunks, plus
  /// mmapped chunks); nil when it cannot be read.
  static func heapInUse() -> Int? {
    guard let xml = HeapReport.mallocInfo() else { return nil }
    // The totals after the last </heap>: free chunks (fast, rest), mmapped chunks, and the
    // arenas' current size.
    let bytes = Array(xml.utf8)
    func sizeAfter(_ element: String) -> Int? {
      let needle = Array(element.utf8)
      var at = -1
      var i = 0
      while i + needle.count <= bytes.count {
        if bytes[i..<i + needle.count].elementsEqual(needle) { at = i }
        i += 1
      }
      guard at >= 0 else { return nil }
      // ` size="N"` follows in the same element.
      let key = Array(" size=\"".utf8)
      var j = at
      while j + key.count <= bytes.count, bytes[j] != UInt8(ascii: ">") {
        if bytes[j..<j + key.count].elementsEqual(key) {
          let digits = bytes[(j + key.count)...].prefix(while: { $0 >= 0x30 && $0 <= 0x39 })
          return Int(String(decoding: digits, as: UTF8.self))
        }
        j += 1
      }
      return nil
    }
    // The last occurrence of each: the totals over all arenas.
    guard let fast = sizeAfter("<total type=\"fast\""), let rest = sizeAfter("<total type=\"rest\""),
      let mmapped = sizeAfter("<total type=\"mmap\""), let current = sizeAfter("<system type=\"current\"")
    else { return nil }
    return current - fast - rest + mmapped
  }

  static func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
  }

  static func fmt(_ v: Double) -> String { String((v * 100).rounded() / 100) }

  static func cpuSeconds() -> Double {
    Double(Clocks.processCPUNanoseconds()) / 1e9
  }

  static func monotonicSeconds() -> Double {
    Double(Clocks.nanoseconds(.monotonic)) / 1e9
  }

  /// SplitMix64 (Steele et al. 2014): the same regions and fixes every run.
  struct Generator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    mutating func uniform(_ lo: Double, _ hi: Double) -> Double {
      lo + (hi - lo) * Double(next() >> 11) / Double(1 << 53)
    }
    /// Uniform in the logarithm: 10^uniform(log10 lo, log10 hi) (Maths has no exp or log; the
    /// same draw of the generator as e^uniform(ln lo, ln hi), equal but for rounding).
    mutating func logUniform(_ lo: Double, _ hi: Double) -> Double {
      Maths.pow(10, uniform(Maths.log10(lo), Maths.log10(hi)))
    }
  }
}
