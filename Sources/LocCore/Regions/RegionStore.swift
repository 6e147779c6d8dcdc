/// The registered regions and their spatial index, without any notion of state over time.
///
/// Memory is the point of this type's shape (the budget: 256 bytes a region at
/// 100,000): a 64-byte cold slot, a 20-byte packed entry (the centre and radius in `Float`
/// and the slot, all a fix's search touches) in its level cell's run (`PackedCells`), ids
/// packed in one byte arena, two cell tables, an id table, and arrays that grow by a
/// quarter, not double.
///
/// Each region is in its level cell's run (fixes) and on a doubly linked list of its coarse
/// cell (the acquisition hint, and the level mask that lets a fix skip empty levels).
struct RegionStore: Sendable {
  /// One region's cold data; `flags == 0` when the slot is free.
  struct Slot: Sendable {
    // What a fix reads of a region it evaluates comes first: 16 bytes at offset 0, which
    // lie in one cache line (the heap aligns to 16), so a slot that misses the cache costs
    // one miss (the centre and radius of the search are in the packed entry).
    /// The index in the monitor's list for the region's state (unknown, or active), or -1.
    var list: Int32
    /// The index of the region's entry in `PackedCells.entries`.
    var position: Int32
    var idLength: UInt8
    /// `entryBit`, `exitBit`, `liveBit`.
    var flags: UInt8
    /// 0 unknown, 1 inside, 2 outside.
    var state: UInt8
    var idOffset: UInt32
    var latitude: Double
    var longitude: Double
    var radius: Double
    /// The dwell time in microseconds; 0 when no dwell event was asked for.
    var dwellMicros: Int64
    /// The id table's hash of (owner, id), kept so the table grows without rehashing.
    var idHash: UInt32
    var owner: UInt32
    var coarsePrev: Int32
    var coarseNext: Int32

    static let entryBit: UInt8 = 1
    static let exitBit: UInt8 = 2
    static let liveBit: UInt8 = 4

    /// The centre.
    var centre: Coordinate { Coordinate(lat: latitude, lon: longitude)! }
  }

  private(set) var slots: [Slot] = []
  private var free: [Int32] = []
  private var idBytes: [UInt8] = []
  private var idGarbage = 0
  private var ids = RegionIDTable()
  /// Level cells (levels 0...13) with their packed entries, and coarse cells tagged with
  /// the levels of their regions.
  private(set) var cells = PackedCells()
  private(set) var coarse = CellTable(tagged: true)
  /// Regions per level, and the largest radius at each while it has any.
  private(set) var levelCount = [Int](repeating: 0, count: RegionGrid.levels)
  private(set) var levelMaxRadius = [Double](repeating: 0, count: RegionGrid.levels)
  /// The largest radius registered since the store was last empty.
  private(set) var maxRadius = 0.0
  /// Regions per owner.
  private(set) var perOwner: [RegionOwner: Int] = [:]
  /// Regions.
  private(set) var count = 0

  /// The id of a live slot.
  func id(_ s: Int32) -> RegionID {
    let slot = slots[Int(s)]
    let start = Int(slot.idOffset)
    return RegionID(validated: String(decoding: idBytes[start..<start + Int(slot.idLength)], as: UTF8.self))
  }

  /// An (owner, id) pair as the id table sees it: the id's bytes and the hash, worked out
  /// once for a lookup and the insertion after it.
  struct Key {
    var owner: UInt32
    var id: RegionID
    var hash: UInt32

    init(_ owner: RegionOwner, _ id: RegionID) {
      self.owner = owner.raw
      self.id = id
      hash = RegionIDTable.hash(owner.raw, id)
    }
  }

  /// The slot of (owner, id), or -1.
  func find(_ owner: RegionOwner, _ id: RegionID) -> Int32 { find(Key(owner, id)) }

  /// The slot of a key, or -1.
  func find(_ key: Key) -> Int32 {
    ids.find(hash: key.hash) { s in
      let slot = slots[Int(s)]
      let start = Int(slot.idOffset)
      return slot.idHash == key.hash && slot.owner == key.owner
        && idBytes[start..<start + Int(slot.idLength)].elementsEqual(key.id.value.utf8)
    }
  }

  /// The hash of any slot, for the id table's growth and removal. It holds a copy of the
  /// slot array only: a closure holding the whole store would share the id table's buckets
  /// while they are mutated, and every registration would copy them.
  private var hashOf: (Int32) -> UInt32 {
    let slots = self.slots
    return { s in slots[Int(s)].idHash }
  }

  /// Adds a region that is not in the store (the caller checked limits and duplicates);
  /// its state is unknown. Returns its slot.
  mutating func insert(_ region: CircularRegion, key: Key) -> Int32 {
    let owner = RegionOwner(key.owner)
    let p = EarthPoint(region.centre)
    var flags = Slot.liveBit
    if region.notifyOnEntry { flags |= Slot.entryBit }
    if region.notifyOnExit { flags |= Slot.exitBit }
    let length = key.id.value.utf8.count
    Self.grow(&idBytes, by: length)
    let offset = UInt32(idBytes.count)
    idBytes.append(contentsOf: key.id.value.utf8)
    let slot = Slot(
      list: -1, position: -1, idLength: UInt8(length), flags: flags, state: 0, idOffset: offset,
      latitude: region.centre.latitude.value, longitude: region.centre.longitude.value,
      radius: region.radius.value, dwellMicros: region.dwell.map { Self.micros($0) } ?? 0,
      idHash: key.hash, owner: owner.raw, coarsePrev: -1, coarseNext: -1)
    let s: Int32
    if let reused = free.popLast() {
      s = reused
      slots[Int(s)] = slot
    } else {
      s = Int32(slots.count)
      Self.grow(&slots, by: 1)
      slots.append(slot)
    }
    let entry = PackedCells.Entry(
      x: Float(p.x), y: Float(p.y), z: Float(p.z), radius: Float(region.radius.value).nextUp, slot: s)
    count += 1
    perOwner[owner, default: 0] += 1
    ids.insert(s, hash: key.hash, count: count, hashOf: hashOf)
    let level = RegionGrid.level(radius: region.radius.value)
    levelCount[level] += 1
    levelMaxRadius[level] = max(levelMaxRadius[level], region.radius.value)
    maxRadius = max(maxRadius, region.radius.value)
    cells.insert(entry, key: RegionGrid.key(level, p), slots: &slots)
    linkCoarse(s, key: RegionGrid.key(RegionGrid.coarseLevel, p), level: level)
    return s
  }

  /// Removes a live slot (the caller took it off the active list first).
  mutating func remove(_ s: Int32) {
    let slot = slots[Int(s)]
    let owner = RegionOwner(slot.owner)
    let p = EarthPoint(slot.centre)
    let level = RegionGrid.level(radius: slot.radius)
    cells.remove(at: slot.position, key: RegionGrid.key(level, p), slots: &slots)
    unlinkCoarse(s, key: RegionGrid.key(RegionGrid.coarseLevel, p))
    count -= 1
    ids.remove(s, hash: slot.idHash, count: count, hashOf: hashOf)
    levelCount[level] -= 1
    if levelCount[level] == 0 { levelMaxRadius[level] = 0 }
    let left = perOwner[owner, default: 1] - 1
    perOwner[owner] = left == 0 ? nil : left
    slots[Int(s)].flags = 0
    idGarbage += Int(slot.idLength)
    free.append(s)
    if count == 0 {
      // Everything went: give the memory back.
      self = RegionStore()
    } else if idGarbage > 4096 && idGarbage * 2 > idBytes.count {
      compactIDs()
    }
  }

  /// The packed entry of a live slot (its centre as an `EarthPoint`, its radius).
  @inline(__always) func entry(_ s: Int32) -> PackedCells.Entry { cells.entries[Int(slots[Int(s)].position)] }

  /// Sets a slot's index in the monitor's lists (-1: on none).
  mutating func setList(_ s: Int32, _ index: Int32) { slots[Int(s)].list = index }

  /// Sets a slot's state.
  mutating func setState(_ s: Int32, _ state: RegionState) { slots[Int(s)].state = Self.code(state) }

  /// The live slots of one owner, in slot order.
  func slots(of owner: RegionOwner) -> [Int32] {
    guard perOwner[owner] != nil else { return [] }
    return slots.indices.filter { slots[$0].flags & Slot.liveBit != 0 && slots[$0].owner == owner.raw }
      .map { Int32($0) }
  }

  /// The public description of a live slot.
  func region(_ s: Int32) -> CircularRegion {
    let slot = slots[Int(s)]
    return try! CircularRegion(
      id: id(s), centre: slot.centre, radius: Meters(slot.radius),
      notifyOnEntry: slot.flags & Slot.entryBit != 0, notifyOnExit: slot.flags & Slot.exitBit != 0,
      dwell: slot.dwellMicros > 0 ? .microseconds(slot.dwellMicros) : nil)
  }

  /// Bytes the store holds on the heap, by the capacity of its arrays.
  var bytes: Int {
    slots.capacity * MemoryLayout<Slot>.stride + free.capacity * 4
      + idBytes.capacity + ids.bytes + cells.bytes + coarse.bytes + perOwner.capacity * 24
  }

  static func code(_ state: RegionState) -> UInt8 {
    switch state {
    case .unknown: return 0
    case .inside: return 1
    case .outside: return 2
    }
  }

  static func state(_ code: UInt8) -> RegionState {
    switch code {
    case 1: return .inside
    case 2: return .outside
    default: return .unknown
    }
  }

  static func micros(_ d: Duration) -> Int64 {
    let (s, atto) = d.components
    return s * 1_000_000 + atto / 1_000_000_000_000
  }

  /// Makes room for `extra` more elements, growing by a quarter when full (doubling would
  /// leave up to half of a 100,000-region array unused).
  private static func grow<T>(_ array: inout [T], by extra: Int) {
    let needed = array.count + extra
    if needed > array.capacity { array.reserveCapacity(max(needed, array.capacity + array.capacity / 4, 16)) }
  }

  /// Rewrites the id arena without the ids of removed regions.
  private mutating func compactIDs() {
    var packed: [UInt8] = []
    packed.reserveCapacity(idBytes.count - idGarbage + idBytes.count / 8)
    for i in slots.indices where slots[i].flags & Slot.liveBit != 0 {
      let start = Int(slots[i].idOffset)
      slots[i].idOffset = UInt32(packed.count)
      packed.append(contentsOf: idBytes[start..<start + Int(slots[i].idLength)])
    }
    idBytes = packed
    idGarbage = 0
  }

  private mutating func linkCoarse(_ s: Int32, key: UInt64, level: Int) {
    let head = coarse.head(key)
    slots[Int(s)].coarseNext = head
    if head >= 0 { slots[Int(head)].coarsePrev = s }
    coarse.setHead(key, s, addingTag: 1 << UInt16(level))
  }

  private mutating func unlinkCoarse(_ s: Int32, key: UInt64) {
    let (prev, next) = (slots[Int(s)].coarsePrev, slots[Int(s)].coarseNext)
    if prev >= 0 { slots[Int(prev)].coarseNext = next } else { coarse.setHead(key, next) }
    if next >= 0 { slots[Int(next)].coarsePrev = prev }
  }
}
