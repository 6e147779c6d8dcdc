/// An open-addressing hash table from a cell key to a 32-bit head and a 32-bit word beside
/// it (linear probing, load at most 1/2, backward-shift deletion, so no tombstones). The
/// level cells keep their run in the packed entries there (`RegionStore`: start and
/// length); the coarse cells keep the first slot of their chain and a 16-bit tag that only
/// ever gains bits while the cell lives. Keys are never 0 (`RegionGrid.key` sets a marker
/// bit), which marks an empty bucket.
///
/// A bucket is 16 bytes, key and values side by side, so a lookup that misses the cache
/// costs one miss, not one per array; two to four buckets per cell.
struct CellTable: Sendable {
  struct Bucket: Sendable {
    var key: UInt64
    var head: Int32
    var aux: UInt32
  }

  private var buckets: [Bucket]
  private let tagged: Bool
  private var shift: UInt64
  /// Occupied cells.
  private(set) var count = 0

  private static let empty = Bucket(key: 0, head: -1, aux: 0)

  /// An empty table with 16 buckets; `tagged` keeps a tag per cell (`setHead`'s).
  init(tagged: Bool) {
    self.tagged = tagged
    buckets = Array(repeating: Self.empty, count: 16)
    shift = 64 - 4
  }

  /// Bytes held by the buckets.
  var bytes: Int { buckets.capacity * MemoryLayout<Bucket>.stride }

  @inline(__always) private func bucket(_ key: UInt64) -> Int {
    // Fibonacci hashing: the top bits of key × 2^64/φ.
    Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
  }

  @inline(__always) private func find(_ key: UInt64) -> Int {
    buckets.withUnsafeBufferPointer { b in
      let mask = b.count - 1
      var i = bucket(key)
      while true {
        let k = b[i].key
        if k == key || k == 0 { return i }
        i = (i + 1) & mask
      }
    }
  }

  /// The head and the word beside it of cell `key`, or (-1, 0).
  @inline(__always) func entry(_ key: UInt64) -> (head: Int32, aux: UInt32) {
    let b = buckets[find(key)]
    return b.key == key ? (b.head, b.aux) : (-1, 0)
  }

  /// The first slot in cell `key`, or -1.
  @inline(__always) func head(_ key: UInt64) -> Int32 { entry(key).head }

  /// The tag of cell `key`, 0 when there is no such cell.
  @inline(__always) func tag(_ key: UInt64) -> UInt16 { UInt16(truncatingIfNeeded: entry(key).aux) }

  /// Sets the head of cell `key` and adds `tag` bits to its tag; -1 removes the cell (and
  /// its tag).
  mutating func setHead(_ key: UInt64, _ head: Int32, addingTag tag: UInt16 = 0) {
    let i = find(key)
    let aux = tagged ? (buckets[i].key == key ? buckets[i].aux | UInt32(tag) : UInt32(tag)) : 0
    set(key, head, aux: aux, at: i)
  }

  /// Sets the head and the word of cell `key`; a head of -1 removes the cell.
  mutating func set(_ key: UInt64, _ head: Int32, aux: UInt32) { set(key, head, aux: aux, at: find(key)) }

  private mutating func set(_ key: UInt64, _ head: Int32, aux: UInt32, at i: Int) {
    let present = buckets[i].key == key
    if head < 0 {
      if present { remove(at: i) }
      return
    }
    buckets[i] = Bucket(key: key, head: head, aux: aux)
    if present { return }
    count += 1
    if count * 2 > buckets.count { resize(buckets.count * 2) }
  }

  /// Empties bucket `start` and moves later entries of its run back, so lookups stay correct.
  private mutating func remove(at start: Int) {
    let mask = buckets.count - 1
    var hole = start
    var i = (start + 1) & mask
    while buckets[i].key != 0 {
      // The entry at i may fill the hole when its home is not cyclically within (hole, i],
      // that is when it sits at least as far from its home as from the hole.
      let fromHome = (i - bucket(buckets[i].key)) & mask
      let fromHole = (i - hole) & mask
      if fromHome >= fromHole {
        buckets[hole] = buckets[i]
        hole = i
      }
      i = (i + 1) & mask
    }
    buckets[hole] = Self.empty
    count -= 1
    if buckets.count > 16 && count * 8 < buckets.count { resize(buckets.count / 2) }
  }

  /// Calls `body` with every occupied cell's key, head and word (in bucket order).
  func forEach(_ body: (UInt64, Int32, UInt32) -> Void) {
    for b in buckets where b.key != 0 { body(b.key, b.head, b.aux) }
  }

  private mutating func resize(_ n: Int) {
    let old = buckets
    buckets = Array(repeating: Self.empty, count: n)
    shift = UInt64(64 - n.trailingZeroBitCount)
    let mask = n - 1
    for b in old where b.key != 0 {
      var i = bucket(b.key)
      while buckets[i].key != 0 { i = (i + 1) & mask }
      buckets[i] = b
    }
  }
}
