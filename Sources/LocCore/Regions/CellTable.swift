/// An open-addressing hash table from a cell key to the first region slot in that cell
/// (linear probing, load at most 1/2, backward-shift deletion, so no tombstones), with an
/// optional 16-bit tag per cell that only ever gains bits while the cell lives. Keys are
/// never 0 (`RegionGrid.key` sets a marker bit), which marks an empty bucket.
///
/// 12 bytes a bucket (14 with tags), two to four buckets per cell.
struct CellTable: Sendable {
  private var keys: [UInt64]
  private var heads: [Int32]
  private var tags: [UInt16]
  private let tagged: Bool
  private var shift: UInt64
  /// Occupied cells.
  private(set) var count = 0

  /// An empty table with 16 buckets; `tagged` keeps a tag per cell.
  init(tagged: Bool) {
    self.tagged = tagged
    keys = Array(repeating: 0, count: 16)
    heads = Array(repeating: -1, count: 16)
    tags = tagged ? Array(repeating: 0, count: 16) : []
    shift = 64 - 4
  }

  /// Bytes held by the buckets.
  var bytes: Int { keys.capacity * 8 + heads.capacity * 4 + tags.capacity * 2 }

  @inline(__always) private func bucket(_ key: UInt64) -> Int {
    // Fibonacci hashing: the top bits of key × 2^64/φ.
    Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
  }

  @inline(__always) private func find(_ key: UInt64) -> Int {
    let mask = keys.count - 1
    var i = bucket(key)
    while true {
      let k = keys[i]
      if k == key || k == 0 { return i }
      i = (i + 1) & mask
    }
  }

  /// The first slot in cell `key`, or -1.
  @inline(__always) func head(_ key: UInt64) -> Int32 {
    let i = find(key)
    return keys[i] == key ? heads[i] : -1
  }

  /// The tag of cell `key`, 0 when there is no such cell.
  @inline(__always) func tag(_ key: UInt64) -> UInt16 {
    let i = find(key)
    return keys[i] == key ? tags[i] : 0
  }

  /// Sets the first slot of cell `key` and adds `tag` bits to its tag; -1 removes the cell
  /// (and its tag).
  mutating func setHead(_ key: UInt64, _ head: Int32, addingTag tag: UInt16 = 0) {
    let i = find(key)
    if head < 0 {
      if keys[i] == key { remove(at: i) }
      return
    }
    if tagged { tags[i] = keys[i] == key ? tags[i] | tag : tag }
    heads[i] = head
    if keys[i] == key { return }
    keys[i] = key
    count += 1
    if count * 2 > keys.count { resize(keys.count * 2) }
  }

  /// Empties bucket `start` and moves later entries of its run back, so lookups stay correct.
  private mutating func remove(at start: Int) {
    let mask = keys.count - 1
    var hole = start
    var i = (start + 1) & mask
    while keys[i] != 0 {
      // The entry at i may fill the hole when its home is not cyclically within (hole, i],
      // that is when it sits at least as far from its home as from the hole.
      let fromHome = (i - bucket(keys[i])) & mask
      let fromHole = (i - hole) & mask
      if fromHome >= fromHole {
        keys[hole] = keys[i]
        heads[hole] = heads[i]
        if tagged { tags[hole] = tags[i] }
        hole = i
      }
      i = (i + 1) & mask
    }
    keys[hole] = 0
    heads[hole] = -1
    if tagged { tags[hole] = 0 }
    count -= 1
    if keys.count > 16 && count * 8 < keys.count { resize(keys.count / 2) }
  }

  private mutating func resize(_ buckets: Int) {
    let (oldKeys, oldHeads, oldTags) = (keys, heads, tags)
    keys = Array(repeating: 0, count: buckets)
    heads = Array(repeating: -1, count: buckets)
    tags = tagged ? Array(repeating: 0, count: buckets) : []
    shift = UInt64(64 - buckets.trailingZeroBitCount)
    let mask = buckets - 1
    for j in oldKeys.indices where oldKeys[j] != 0 {
      var i = bucket(oldKeys[j])
      while keys[i] != 0 { i = (i + 1) & mask }
      keys[i] = oldKeys[j]
      heads[i] = oldHeads[j]
      if tagged { tags[i] = oldTags[j] }
    }
  }
}
