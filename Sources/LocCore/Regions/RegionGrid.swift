/// The cells of the spatial index: cubes in Earth-centred space (`EarthPoint`), in levels
/// whose edge doubles from 40 m. A region lives in one cell, the one holding its centre, at
/// the finest level whose edge is at least twice its radius; a coarse level (64 km) holds
/// every region again for the acquisition hint and the level tags. docs/REGIONS.md explains
/// the choice.
enum RegionGrid {
  /// The edge of level 0, metres.
  static let baseEdge = 40.0
  /// Levels 0...13: level 13's edge (328 km) holds radii up to 164 km, above the 100 km limit.
  static let levels = 14
  /// The level used for the acquisition hint.
  static let coarseLevel = 15
  /// The edge of the coarse level, metres.
  static let coarseEdge = 64_000.0
  /// Levels 0...10 (radii up to 20 km) are probed only when a coarse cell near the fix
  /// has a region of that level (its tag): in a sparse world most fine levels have nothing
  /// near, and one coarse lookup saves a dozen. Larger levels are probed directly (their
  /// reach would need many coarse cells).
  static let maskedTop = 10
  /// The bits of `maskedTop` and below.
  static let maskedLevels: UInt16 = (1 << UInt16(maskedTop + 1)) - 1
  /// Slack added to every search reach: covers the `Float` storage of centres (under 0.4 m
  /// a component at Earth's radius) and rounding in the trigonometry.
  static let slack = 2.0

  /// The cell edge of a level, metres.
  @inline(__always) static func edge(_ level: Int) -> Double {
    level == coarseLevel ? coarseEdge : baseEdge * Double(1 << level)
  }

  /// Edge over the largest radius at each level. Measured (bench/70-regions.sh): 2 gives a
  /// crowded city a third of the candidates of 4 for twice the cell lookups.
  static let ratio = 2.0

  /// The finest level whose regions may be this large: radius <= edge / ratio.
  static func level(radius: Double) -> Int {
    var level = 0
    while level < levels - 1 && radius > edge(level) / ratio { level += 1 }
    return level
  }

  /// The index of the cell along one axis.
  @inline(__always) static func index(_ coordinate: Double, _ edge: Double) -> Int {
    Int((coordinate / edge).rounded(.down))
  }

  /// The key of a cell: a marker bit (never 0), the level, and three 19-bit cell indices
  /// (at 40 m, Earth's radius is 159,275 cells: within ±2^18).
  @inline(__always) static func key(_ level: Int, _ ix: Int, _ iy: Int, _ iz: Int) -> UInt64 {
    1 << 63 | UInt64(level) << 57 | field(ix, at: 38) | field(iy, at: 19) | field(iz, at: 0)
  }

  /// One axis's cell index in a key: biased by 2^18, 19 bits, at bit `shift`.
  @inline(__always) static func field(_ i: Int, at shift: UInt64) -> UInt64 {
    (UInt64(i + (1 << 18)) & ((1 << 19) - 1)) << shift
  }

  /// The key of the cell holding `p` at `level`.
  static func key(_ level: Int, _ p: EarthPoint) -> UInt64 {
    let e = edge(level)
    return key(level, index(p.x, e), index(p.y, e), index(p.z, e))
  }

  /// Calls `body` with the key of every cell at `level` that the cube of half-side `reach`
  /// around `p` touches. Any point within `reach` of `p` lies in one of them.
  @inline(__always) static func forEachCell(
    level: Int, around p: EarthPoint, reach: Double, _ body: (UInt64) -> Void
  ) {
    let e = edge(level)
    let x0 = index(p.x - reach, e)
    let x1 = index(p.x + reach, e)
    let y0 = index(p.y - reach, e)
    let y1 = index(p.y + reach, e)
    let z0 = index(p.z - reach, e)
    let z1 = index(p.z + reach, e)
    // The key's parts are put together one axis at a time, outside the inner loops. Built
    // whole in the innermost loop (`key(level, ix, iy, iz)`), Swift 6.3.1's optimizer (-O)
    // dropped the marker, level, x and y bits from the key of every cell after the first
    // of a row: those cells were never found, and a region the fix was well inside went
    // unseen (issue 28, finding 8; RegionGridTests holds it in a release build's terms).
    let top: UInt64 = 1 << 63 | UInt64(level) << 57
    for ix in x0...x1 {
      let kx = top | field(ix, at: 38)
      for iy in y0...y1 {
        let kxy = kx | field(iy, at: 19)
        for iz in z0...z1 { body(kxy | field(iz, at: 0)) }
      }
    }
  }

  /// The straight-line distance from `p` to the cell (a cube) of `key`; 0 inside it. A
  /// lower bound of the great-circle distance from `p` to anything in the cell.
  static func chordDistance(from p: EarthPoint, toCell key: UInt64) -> Double {
    let bias = 1 << 18
    let mask: UInt64 = (1 << 19) - 1
    let level = Int((key >> 57) & 0xF)
    let e = edge(level)
    func gap(_ v: Double, _ field: UInt64) -> Double {
      let lo = Double(Int(field & mask) - bias) * e
      if v < lo { return lo - v }
      if v > lo + e { return v - lo - e }
      return 0
    }
    let dx = gap(p.x, key >> 38)
    let dy = gap(p.y, key >> 19)
    let dz = gap(p.z, key)
    return (dx * dx + dy * dy + dz * dz).squareRoot()
  }
}
