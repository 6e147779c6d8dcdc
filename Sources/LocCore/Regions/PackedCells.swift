/// The level cells of the spatial index, each cell's regions side by side in one array, so
/// that a fix's search reads a few short runs of memory instead of one scattered entry per
/// candidate (a fix in a new place finds none of them in the cache: bench/70-regions.sh,
/// scattered fixes).
///
/// A cell owns a block of the array whose capacity is a power of two (its class); the cell
/// table holds the block's start, the cell's length and its class. A region is appended to
/// its cell's block; a full block moves to one twice as large, a block a quarter full to
/// one half as large; a removal moves the cell's last entry into the hole. Freed blocks
/// wait on a free list per class (linked through their first entry) for the next block of
/// that class, and when they hold more than half the array it is rewritten without them,
/// so the array holds at most eight entries a region (a growing cell's block is at least
/// half full, a shrinking one more than a quarter) and every operation is amortised O(1). Each move updates the region's slot (`RegionStore.Slot.position`).
struct PackedCells: Sendable {
  /// What a fix's search reads for each candidate.
  struct Entry: Sendable {
    /// The centre as an `EarthPoint` (the search adds `RegionGrid.slack`).
    var x: Float
    var y: Float
    var z: Float
    /// The radius, rounded up.
    var radius: Float
    /// The region's slot; in a free block's first entry, the next free block of its class.
    var slot: Int32

    var point: EarthPoint { EarthPoint(x: Double(x), y: Double(y), z: Double(z)) }
  }

  private(set) var entries: [Entry] = []
  /// Level cell key → (block start, length | class << 24).
  private(set) var table = CellTable(tagged: false)
  /// The first free block of each class, or -1.
  private var freeBlocks = [Int32](repeating: -1, count: 32)
  /// Entries in free blocks.
  private(set) var freeEntries = 0
  /// Rewrites of the array without its free blocks (for tests).
  private(set) var compactions = 0

  /// Bytes held on the heap.
  var bytes: Int { entries.capacity * MemoryLayout<Entry>.stride + table.bytes + freeBlocks.capacity * 4 }

  /// The run of cell `key`: its start in `entries` and its length (0 when there is none).
  @inline(__always) func run(_ key: UInt64) -> (start: Int32, count: Int) {
    let (start, aux) = table.entry(key)
    return (start, Int(aux & 0xFF_FFFF))
  }

  /// Adds an entry to cell `key` and sets its slot's position.
  mutating func insert(_ entry: Entry, key: UInt64, slots: inout [RegionStore.Slot]) {
    var (start, aux) = table.entry(key)
    var length = Int(aux & 0xFF_FFFF)
    var level = Int(aux >> 24)
    if start < 0 {
      start = allocate(0)
      length = 0
      level = 0
    } else if length == 1 << level {
      start = move(start, length, from: level, to: level + 1, slots: &slots)
      level += 1
    }
    let p = Int(start) + length
    entries[p] = entry
    slots[Int(entry.slot)].position = Int32(p)
    table.set(key, start, aux: UInt32(length + 1) | UInt32(level) << 24)
  }

  /// Removes the entry at `position` from cell `key`, moving the cell's last entry into its
  /// place.
  mutating func remove(at position: Int32, key: UInt64, slots: inout [RegionStore.Slot]) {
    var (start, aux) = table.entry(key)
    let length = Int(aux & 0xFF_FFFF) - 1
    var level = Int(aux >> 24)
    let last = Int(start) + length
    if Int(position) != last {
      entries[Int(position)] = entries[last]
      slots[Int(entries[last].slot)].position = position
    }
    if length == 0 {
      release(start, level)
      table.set(key, -1, aux: 0)
    } else {
      if level > 0 && length <= (1 << level) / 4 {
        start = move(start, length, from: level, to: level - 1, slots: &slots)
        level -= 1
      }
      table.set(key, start, aux: UInt32(length) | UInt32(level) << 24)
    }
    if freeEntries > 4096 && freeEntries * 2 > entries.count { compact(slots: &slots) }
  }

  /// A block of `1 << level` entries: a free one of that class, or new ones at the end.
  private mutating func allocate(_ level: Int) -> Int32 {
    let head = freeBlocks[level]
    if head >= 0 {
      freeBlocks[level] = entries[Int(head)].slot
      freeEntries -= 1 << level
      return head
    }
    let start = Int32(entries.count)
    let n = 1 << level
    if entries.count + n > entries.capacity {
      entries.reserveCapacity(max(entries.count + n, entries.capacity + entries.capacity / 4, 16))
    }
    entries.append(contentsOf: repeatElement(Entry(x: 0, y: 0, z: 0, radius: 0, slot: -1), count: n))
    return start
  }

  private mutating func release(_ start: Int32, _ level: Int) {
    entries[Int(start)].slot = freeBlocks[level]
    freeBlocks[level] = start
    freeEntries += 1 << level
  }

  /// Moves a cell's `length` entries to a new block of class `to`; returns its start.
  private mutating func move(
    _ start: Int32, _ length: Int, from: Int, to: Int, slots: inout [RegionStore.Slot]
  ) -> Int32 {
    let new = allocate(to)
    for k in 0..<length {
      let e = entries[Int(start) + k]
      entries[Int(new) + k] = e
      slots[Int(e.slot)].position = new + Int32(k)
    }
    release(start, from)
    return new
  }

  /// Rewrites the array without its free blocks (cells in the table's order).
  private mutating func compact(slots: inout [RegionStore.Slot]) {
    var cells: [(UInt64, Int32, UInt32)] = []
    cells.reserveCapacity(table.count)
    table.forEach { cells.append(($0, $1, $2)) }
    var packed: [Entry] = []
    packed.reserveCapacity(entries.count - freeEntries + (entries.count - freeEntries) / 8)
    for (key, start, aux) in cells {
      let length = Int(aux & 0xFF_FFFF)
      let new = Int32(packed.count)
      packed.append(contentsOf: entries[Int(start)..<Int(start) + (1 << Int(aux >> 24))])
      for k in 0..<length { slots[Int(packed[Int(new) + k].slot)].position = new + Int32(k) }
      table.set(key, new, aux: aux)
    }
    entries = packed
    freeBlocks = [Int32](repeating: -1, count: 32)
    freeEntries = 0
    compactions += 1
  }
}
