/// Time-zone lookup over the bytes of a boundary file (format 1, described in
/// docs/decisions/0004-time-zone-boundary-file.md).
///
/// Pure: it reads only the buffer it is given, and parses nothing up front but the header
/// and the zone names, so a memory-mapped file costs only the pages lookups touch. Every
/// read is bounds-checked: a corrupt or truncated file is a `FormatError`, never a crash.
/// The caller keeps the buffer alive and unchanged while this value is used (LocSystem's
/// `ZoneBoundaryFile` owns the mapping).
public struct ZoneBoundaries {
  /// What is wrong with a boundary file.
  public enum FormatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Shorter than its header, or than the size its header records.
    case truncated(expected: Int, actual: Int)
    /// Not a boundary file: the first 8 bytes are not the magic.
    case notABoundaryFile
    /// A format version this build cannot read.
    case unsupportedVersion(Int)
    /// The header or the names section is inconsistent; names what.
    case malformed(String)
    /// An impossible value in the grid or the nodes section, at this byte offset of the file.
    case corrupt(offset: Int)
    /// The CRC-32 recorded in the header does not match the contents (checked by `verify()`).
    case checksumMismatch

    public var description: String {
      switch self {
      case .truncated(let expected, let actual): return "truncated: \(actual) bytes, expected \(expected)"
      case .notABoundaryFile: return "not a locd time-zone boundary file"
      case .unsupportedVersion(let v): return "unsupported format version \(v) (this build reads 1)"
      case .malformed(let what): return "malformed \(what)"
      case .corrupt(let offset): return "corrupt data at byte \(offset)"
      case .checksumMismatch: return "checksum mismatch"
      }
    }
  }

  /// The 8 bytes every boundary file starts with.
  public static let magic: [UInt8] = Array("LOCD-TZB".utf8)
  /// The format version this build reads and the generator writes.
  public static let formatVersion = 1
  static let headerSize = 80
  static let columns = 360
  static let rows = 180
  /// Cell units per degree: a cell spans 0...65535 on each axis (about 1.7 m of latitude).
  static let unitsPerDegree = 65535
  // A node's width halves at each level; below 16 levels it would be under one unit.
  static let maximumDepth = 16
  static let uniformFlag: UInt32 = 0x8000_0000
  static let leafFlag: UInt32 = 0x4000_0000
  static let offsetMask: UInt32 = 0x3FFF_FFFF

  /// The timezone-boundary-builder release the boundaries come from, e.g. "2026c".
  public let boundaryRelease: String
  /// The tzdata release whose zones the boundary release follows, e.g. "2026c".
  public let tzdataVersion: String
  /// IANA zone names, indexed by the zone indices lookups return.
  public let zoneNames: [String]
  /// Size of the whole file in bytes.
  public let fileSize: Int

  private let file: UnsafeRawBufferPointer
  private let gridOffset: Int
  private let nodesOffset: Int
  private let nodesEnd: Int

  /// Validates the header, the section table and the zone names of `bytes`.
  public init(bytes: UnsafeRawBufferPointer) throws(FormatError) {
    let h = ZoneBoundaries.headerSize
    guard bytes.count >= h else { throw .truncated(expected: h, actual: bytes.count) }
    guard bytes.prefix(8).elementsEqual(ZoneBoundaries.magic) else { throw .notABoundaryFile }
    func u16(_ at: Int) -> Int {
      Int(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self)))
    }
    func u32(_ at: Int) -> Int {
      Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
    }
    guard u16(8) == ZoneBoundaries.formatVersion else { throw .unsupportedVersion(u16(8)) }
    guard u16(10) == h else { throw .malformed("header size") }
    let size = u32(12)
    guard bytes.count >= size else { throw .truncated(expected: size, actual: bytes.count) }
    guard bytes.count == size else {
      throw .malformed("file size: \(bytes.count) bytes, header says \(size)")
    }
    let zoneCount = u16(16)
    guard zoneCount > 0 else { throw .malformed("zone count") }
    guard u16(18) == ZoneBoundaries.columns, u16(20) == ZoneBoundaries.rows,
      u16(22) == ZoneBoundaries.unitsPerDegree
    else { throw .malformed("grid shape") }
    func section(_ at: Int, _ name: String) throws(FormatError) -> Range<Int> {
      let start = u32(at)
      let count = u32(at + 4)
      guard start >= h, count <= size, start <= size - count else {
        throw .malformed("\(name) section bounds")
      }
      return start..<(start + count)
    }
    let names = try section(24, "names")
    let grid = try section(32, "grid")
    let nodes = try section(40, "nodes")
    guard grid.count == ZoneBoundaries.columns * ZoneBoundaries.rows * 4 else {
      throw .malformed("grid size")
    }
    guard let release = ZoneBoundaries.label(bytes, at: 48), let tzdata = ZoneBoundaries.label(bytes, at: 56)
    else { throw .malformed("release labels") }
    zoneNames = try ZoneBoundaries.parseNames(
      UnsafeRawBufferPointer(rebasing: bytes[names]), count: zoneCount)
    boundaryRelease = release
    tzdataVersion = tzdata
    fileSize = size
    file = bytes
    gridOffset = grid.lowerBound
    nodesOffset = nodes.lowerBound
    nodesEnd = nodes.upperBound
  }

  /// An 8-byte NUL-padded printable ASCII label; nil if empty or not printable.
  private static func label(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> String? {
    let raw = bytes[offset..<(offset + 8)].prefix { $0 != 0 }
    guard !raw.isEmpty, raw.allSatisfy({ (0x21...0x7E).contains($0) }),
      bytes[(offset + raw.count)..<(offset + 8)].allSatisfy({ $0 == 0 })
    else { return nil }
    return String(decoding: raw, as: UTF8.self)
  }

  /// `count` names, each 1...64 printable ASCII bytes followed by a newline, filling the section.
  private static func parseNames(_ section: UnsafeRawBufferPointer, count: Int) throws(FormatError)
    -> [String]
  {
    var names: [String] = []
    names.reserveCapacity(count)
    var start = 0
    for i in 0..<section.count where section[i] == 0x0A {
      let raw = UnsafeRawBufferPointer(rebasing: section[start..<i])
      guard (1...64).contains(raw.count), raw.allSatisfy({ (0x21...0x7E).contains($0) }) else {
        throw .malformed("zone name \(names.count)")
      }
      names.append(String(decoding: raw, as: UTF8.self))
      start = i + 1
    }
    guard names.count == count, start == section.count else { throw .malformed("zone names") }
    return names
  }

  /// The IANA name of the zone at `coordinate`, e.g. "Europe/Oslo" or, at sea, "Etc/GMT-1".
  public func zoneName(at coordinate: Coordinate) throws(FormatError) -> String {
    zoneNames[try zoneIndex(at: coordinate)]
  }

  /// The index into `zoneNames` of the zone at `coordinate`.
  public func zoneIndex(at coordinate: Coordinate) throws(FormatError) -> Int {
    let q = ZoneBoundaries.query(coordinate)
    return try zoneIndex(column: q.column, row: q.row, x: q.x, y: q.y)
  }

  /// Where a coordinate is looked up: its grid cell and, in half cell units, the middle of
  /// the cell unit it falls in. Cells and units are closed on their east and north sides,
  /// so a point exactly on a border along a meridian takes the zone to its west and one on
  /// a border along a parallel the zone to its south, as timezonefinder answers there.
  /// Longitude -180 is the meridian 180.
  static func query(_ coordinate: Coordinate) -> (column: Int, row: Int, x: Int, y: Int) {
    let lon = coordinate.longitude.value == -180 ? 360 : coordinate.longitude.value + 180
    let lat = coordinate.latitude.value + 90
    let column = max(Int(lon.rounded(.up)) - 1, 0)
    let row = max(Int(lat.rounded(.up)) - 1, 0)
    let units = Double(unitsPerDegree)
    let x = max(2 * Int(((lon - Double(column)) * units).rounded(.up)) - 1, 1)
    let y = max(2 * Int(((lat - Double(row)) * units).rounded(.up)) - 1, 1)
    return (column, row, x, y)
  }

  private func u16(_ at: Int) -> Int {
    Int(
      UInt16(
        littleEndian: file.baseAddress.unsafelyUnwrapped.loadUnaligned(fromByteOffset: at, as: UInt16.self)))
  }

  private func u32(_ at: Int) -> UInt32 {
    UInt32(
      littleEndian: file.baseAddress.unsafelyUnwrapped.loadUnaligned(fromByteOffset: at, as: UInt32.self))
  }

  /// The zone at half-unit position (qx, qy) of a cell.
  private func zoneIndex(column: Int, row: Int, x qx: Int, y qy: Int) throws(FormatError) -> Int {
    var at = gridOffset + (row * ZoneBoundaries.columns + column) * 4
    var ref = u32(at)
    var x0 = 0
    var x1 = ZoneBoundaries.unitsPerDegree
    var y0 = 0
    var y1 = ZoneBoundaries.unitsPerDegree
    for _ in 0...ZoneBoundaries.maximumDepth {
      if ref & ZoneBoundaries.uniformFlag != 0 {
        let zone = Int(ref & ~ZoneBoundaries.uniformFlag)
        guard zone < zoneNames.count else { throw .corrupt(offset: at) }
        return zone
      }
      let node = nodesOffset + Int(ref & ZoneBoundaries.offsetMask)
      if ref & ZoneBoundaries.leafFlag != 0 { return try leafZone(at: node, x: qx, y: qy, top: y1) }
      guard node <= nodesEnd - 16 else { throw .corrupt(offset: at) }
      let xm = (x0 + x1) / 2
      let ym = (y0 + y1) / 2
      var child = 0
      if qx > 2 * xm {
        x0 = xm
        child += 1
      } else {
        x1 = xm
      }
      if qy > 2 * ym {
        y0 = ym
        child += 2
      } else {
        y1 = ym
      }
      at = node + 4 * child
      ref = u32(at)
    }
    throw .corrupt(offset: at)
  }

  /// The zone at half-unit position (qx, qy) in a leaf whose top edge is `top`: the zone
  /// below the lowest border segment that the vertical ray from the point up to the top
  /// edge meets, else the zone the leaf's top-edge profile gives at qx.
  private func leafZone(at leaf: Int, x qx: Int, y qy: Int, top: Int) throws(FormatError) -> Int {
    guard leaf <= nodesEnd - 4 else { throw .corrupt(offset: leaf) }
    let profileCount = u16(leaf)
    let lineCount = u16(leaf + 2)
    let profileAt = leaf + 4
    let headAt = profileAt + 4 * profileCount
    var bodyAt = headAt + 10 * lineCount
    guard profileCount > 0, bodyAt <= nodesEnd else { throw .corrupt(offset: leaf) }
    var fallback = u16(profileAt + 2)
    var p = 1
    while p < profileCount, 2 * u16(profileAt + 4 * p) < qx {
      fallback = u16(profileAt + 4 * p + 2)
      p += 1
    }
    // The lowest crossing so far: its height at qx / 2 is bestNum / (2 * bestDx).
    var bestNum = 0
    var bestDx = 1
    var best = -1
    let top2 = 2 * top
    let base = file.baseAddress.unsafelyUnwrapped
    for line in 0..<lineCount {
      let head = headAt + 10 * line
      var x = u16(head + 4)
      var y = u16(head + 6)
      let end = bodyAt + u16(head + 8)
      guard end <= nodesEnd else { throw .corrupt(offset: head) }
      var b = bodyAt
      bodyAt = end
      var west = 2 * x < qx
      while b < end {
        let c = base.load(fromByteOffset: b, as: UInt8.self)
        var nx: Int
        var ny: Int
        if c < 0x80 {
          guard b + 2 <= end else { throw .corrupt(offset: b) }
          nx = x + Int(Int8(bitPattern: c << 1) >> 1)
          ny = y + Int(Int8(bitPattern: base.load(fromByteOffset: b + 1, as: UInt8.self)))
          b += 2
        } else if c < 0xC0 {
          guard b + 3 <= end else { throw .corrupt(offset: b) }
          let v =
            Int(c & 0x3F) | Int(base.load(fromByteOffset: b + 1, as: UInt8.self)) << 6
            | Int(base.load(fromByteOffset: b + 2, as: UInt8.self)) << 14
          nx = x + ((v & 0x7FF) ^ 0x400) - 0x400
          ny = y + (((v >> 11) & 0x7FF) ^ 0x400) - 0x400
          b += 3
        } else if c == 0xC0 {
          guard b + 5 <= end else { throw .corrupt(offset: b) }
          nx = u16(b + 1)
          ny = u16(b + 3)
          b += 5
        } else {
          throw .corrupt(offset: b)
        }
        guard UInt(bitPattern: nx) <= 65535, UInt(bitPattern: ny) <= 65535 else { throw .corrupt(offset: b) }
        // The segment spans qx when its ends lie on different sides of it (qx is odd, so
        // never on an end).
        let nextWest = 2 * nx < qx
        if west != nextWest {
          let eastward = nx > x
          let wx = eastward ? x : nx
          let wy = eastward ? y : ny
          let dx = eastward ? nx - x : x - nx
          let dy = eastward ? ny - y : y - ny
          let num = 2 * wy * dx + (qx - 2 * wx) * dy
          if num >= qy * dx, num <= top2 * dx, best < 0 || num * bestDx < bestNum * dx {
            bestNum = num
            bestDx = dx
            best = u16(head + (eastward ? 2 : 0))
          }
        }
        x = nx
        y = ny
        west = nextWest
      }
    }
    let zone = best >= 0 ? best : fallback
    guard zone < zoneNames.count else { throw .corrupt(offset: leaf) }
    return zone
  }

  /// Checks the whole file: the CRC-32 in the header, then every grid entry and node. Reads
  /// every page, so it is for tests and `locctl tz --check`, not for startup.
  public func verify() throws(FormatError) {
    let h = ZoneBoundaries.headerSize
    let body = UnsafeRawBufferPointer(rebasing: file[h..<fileSize])
    guard CRC32.checksum(of: body) == u32(64) else { throw .checksumMismatch }
    for cell in 0..<(ZoneBoundaries.columns * ZoneBoundaries.rows) {
      let span = ZoneBoundaries.unitsPerDegree
      try verify(
        ref: u32(gridOffset + 4 * cell), from: gridOffset + 4 * cell, x0: 0, x1: span, y0: 0, y1: span,
        depth: 0)
    }
  }

  private func verify(ref: UInt32, from at: Int, x0: Int, x1: Int, y0: Int, y1: Int, depth: Int)
    throws(FormatError)
  {
    guard depth <= ZoneBoundaries.maximumDepth else { throw .corrupt(offset: at) }
    if ref & ZoneBoundaries.uniformFlag != 0 {
      guard Int(ref & ~ZoneBoundaries.uniformFlag) < zoneNames.count else { throw .corrupt(offset: at) }
      return
    }
    let node = nodesOffset + Int(ref & ZoneBoundaries.offsetMask)
    if ref & ZoneBoundaries.leafFlag != 0 {
      try verifyLeaf(at: node, x0: x0, x1: x1)
      return
    }
    guard node <= nodesEnd - 16, x1 - x0 >= 2, y1 - y0 >= 2 else { throw .corrupt(offset: at) }
    let xm = (x0 + x1) / 2
    let ym = (y0 + y1) / 2
    try verify(ref: u32(node), from: node, x0: x0, x1: xm, y0: y0, y1: ym, depth: depth + 1)
    try verify(ref: u32(node + 4), from: node + 4, x0: xm, x1: x1, y0: y0, y1: ym, depth: depth + 1)
    try verify(ref: u32(node + 8), from: node + 8, x0: x0, x1: xm, y0: ym, y1: y1, depth: depth + 1)
    try verify(ref: u32(node + 12), from: node + 12, x0: xm, x1: x1, y0: ym, y1: y1, depth: depth + 1)
  }

  private func verifyLeaf(at leaf: Int, x0: Int, x1: Int) throws(FormatError) {
    // The profile starts at the leaf's left edge and rises strictly; every zone index is in
    // range; one lookup then decodes every polyline step and checks its bounds.
    guard leaf <= nodesEnd - 4 else { throw .corrupt(offset: leaf) }
    let profileCount = u16(leaf)
    let lineCount = u16(leaf + 2)
    let headAt = leaf + 4 + 4 * profileCount
    guard profileCount > 0, headAt + 10 * lineCount <= nodesEnd, u16(leaf + 4) == x0 else {
      throw .corrupt(offset: leaf)
    }
    var previous = x0 - 1
    for p in 0..<profileCount {
      let start = u16(leaf + 4 + 4 * p)
      guard start > previous, start < x1, u16(leaf + 6 + 4 * p) < zoneNames.count else {
        throw .corrupt(offset: leaf + 4 + 4 * p)
      }
      previous = start
    }
    for line in 0..<lineCount
    where u16(headAt + 10 * line) >= zoneNames.count || u16(headAt + 10 * line + 2) >= zoneNames.count {
      throw .corrupt(offset: headAt + 10 * line)
    }
    _ = try leafZone(at: leaf, x: 2 * x0 + 1, y: 1, top: ZoneBoundaries.unitsPerDegree)
  }
}
