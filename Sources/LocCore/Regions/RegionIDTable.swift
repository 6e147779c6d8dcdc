/// An open-addressing set of region slots, found by (owner, id): 4 bytes a bucket, load at
/// most 1/2. The keys live in the slots; callers pass the hash of a slot and a comparison.
struct RegionIDTable: Sendable {
  private var buckets: [Int32] = Array(repeating: -1, count: 16)

  /// Bytes held by the buckets.
  var bytes: Int { buckets.capacity * 4 }

  /// The hash of a key: the owner and the id, 32 bits of Swift's seeded hash.
  @inline(__always) static func hash(_ owner: UInt32, _ id: RegionID) -> UInt32 {
    var hasher = Hasher()
    hasher.combine(owner)
    hasher.combine(id.value)
    return UInt32(truncatingIfNeeded: hasher.finalize())
  }

  /// The slot with this key, or -1; `matches` compares a slot's key with the one sought.
  func find(hash: UInt32, _ matches: (Int32) -> Bool) -> Int32 {
    let mask = buckets.count - 1
    var i = Int(hash) & mask
    while true {
      let slot = buckets[i]
      if slot < 0 { return -1 }
      if matches(slot) { return slot }
      i = (i + 1) & mask
    }
  }

  /// Adds a slot that is not in the table; `count` is the number of entries after adding,
  /// `hashOf` the hash of any slot (for growing).
  mutating func insert(_ slot: Int32, hash: UInt32, count: Int, hashOf: (Int32) -> UInt32) {
    if count * 2 > buckets.count { rebuild(buckets.count * 2, hashOf) }
    let mask = buckets.count - 1
    var i = Int(hash) & mask
    while buckets[i] >= 0 { i = (i + 1) & mask }
    buckets[i] = slot
  }

  /// Removes a slot that is in the table; `count` is the number of entries after removing.
  mutating func remove(_ slot: Int32, hash: UInt32, count: Int, hashOf: (Int32) -> UInt32) {
    let mask = buckets.count - 1
    var hole = Int(hash) & mask
    while buckets[hole] != slot { hole = (hole + 1) & mask }
    var i = (hole + 1) & mask
    while buckets[i] >= 0 {
      // Backward shift, as in CellTable: move an entry at least as far from home as from
      // the hole.
      let home = Int(hashOf(buckets[i])) & mask
      if (i - home) & mask >= (i - hole) & mask {
        buckets[hole] = buckets[i]
        hole = i
      }
      i = (i + 1) & mask
    }
    buckets[hole] = -1
    if buckets.count > 16 && count * 8 < buckets.count { rebuild(buckets.count / 2, hashOf) }
  }

  private mutating func rebuild(_ size: Int, _ hashOf: (Int32) -> UInt32) {
    let old = buckets
    buckets = Array(repeating: -1, count: size)
    let mask = size - 1
    for slot in old where slot >= 0 {
      var i = Int(hashOf(slot)) & mask
      while buckets[i] >= 0 { i = (i + 1) & mask }
      buckets[i] = slot
    }
  }
}
