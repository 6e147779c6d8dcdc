import Testing

@testable import LocCore

/// The packed level cells (`PackedCells`): every cell's run holds exactly its regions and
/// every region's slot points at its own entry, through blocks that grow, shrink, are freed
/// and reused, and through the rewrite of the array when freed blocks fill half of it; and a
/// monitor whose regions churn that hard still reports what the brute force reports.
@Suite struct RegionPackedCellsTests {
  /// Regions crowded on a few spots (so that some cells hold hundreds) and a few scattered.
  static func region(_ serial: Int, _ rng: inout SplitMix64) -> CircularRegion {
    let spots = [(59.91, 10.75), (90.0, 0.0), (10.0, 179.9999), (-33.9, 18.4)]
    let spot = spots[Int.random(in: 0..<spots.count, using: &rng)]
    let spread = Bool.random(using: &rng) ? 30.0 : 3_000.0
    let centre = Coordinate(lat: spot.0, lon: spot.1)!.destination(
      distance: Meters(Double.random(in: 0..<spread, using: &rng)),
      bearing: Degrees(Double.random(in: 0..<360, using: &rng)))
    return try! CircularRegion(
      id: RegionID("p\(serial)"), centre: centre, radius: Meters(Double.random(in: 10..<1_500, using: &rng)))
  }

  /// Checks the store's packing against its live slots.
  static func check(_ store: RegionStore, live: Set<Int32>) {
    var inRuns = 0
    var bad = 0
    store.cells.table.forEach { key, start, aux in
      let run = store.cells.run(key)
      #expect(run.start == start && run.count == Int(aux & 0xFF_FFFF))
      #expect(run.count > 0 && run.count <= 1 << Int(aux >> 24))
      for k in Int(start)..<Int(start) + run.count {
        let s = store.cells.entries[k].slot
        inRuns += 1
        // Each entry is a live region of this very cell, and its slot points back at it.
        let slot = store.slots[Int(s)]
        let level = RegionGrid.level(radius: slot.radius)
        let cell = RegionGrid.key(level, EarthPoint(slot.centre))
        if !live.contains(s) || Int(slot.position) != k || cell != key {
          bad += 1
        }
      }
    }
    #expect(bad == 0)
    #expect(inRuns == live.count && store.count == live.count)
    for s in live {
      let entry = store.entry(s)
      let p = EarthPoint(store.slots[Int(s)].centre)
      #expect(entry.slot == s && entry.x == Float(p.x) && entry.y == Float(p.y) && entry.z == Float(p.z))
    }
  }

  @Test func runsHoldExactlyTheirRegionsThroughGrowthShrinkingReuseAndRewrite() {
    var rng = SplitMix64(seed: 56)
    var store = RegionStore()
    var live: [Int32: RegionStore.Key] = [:]
    var serial = 0
    let owner = RegionOwner(7)
    func add(_ n: Int) {
      for _ in 0..<n {
        serial += 1
        let region = Self.region(serial, &rng)
        let key = RegionStore.Key(owner, region.id)
        let s = store.insert(region, key: key)
        #expect(live[s] == nil)
        live[s] = key
      }
    }
    func drop(_ n: Int) {
      for _ in 0..<n {
        guard let s = live.keys.randomElement(using: &rng) else { return }
        store.remove(s)
        live[s] = nil
      }
    }
    add(6_000)
    Self.check(store, live: Set(live.keys))
    let before = store.cells.compactions
    // Most go: blocks shrink and are freed, until the free ones fill half the array and it
    // is rewritten.
    for _ in 0..<10 {
      drop(500)
      Self.check(store, live: Set(live.keys))
    }
    #expect(store.cells.compactions > before)
    // Live blocks are more than a quarter full, free ones at most half the array (or 4,096).
    #expect(store.cells.entries.count <= max(4 * store.count + 4_096, 8 * store.count))
    // Freed slots are reused by new regions, in cells old and new.
    let slotsBefore = store.slots.count
    add(3_000)
    #expect(store.slots.count == slotsBefore)
    Self.check(store, live: Set(live.keys))
    // Interleaved.
    for round in 0..<20 {
      add(200 + round * 10)
      drop(300)
      Self.check(store, live: Set(live.keys))
    }
    // Every found by its key still.
    for (s, key) in live { #expect(store.find(key) == s) }
    drop(live.count)
    #expect(store.count == 0 && store.cells.entries.isEmpty)
  }

  /// A monitor over crowded regions, most of them removed and replaced between fixes (the
  /// rewrite happens on the way), against the brute force fix by fix.
  @Test func heavyChurnMatchesBruteForce() throws {
    var rng = SplitMix64(seed: 57)
    var monitor = RegionMonitor()
    var reference = BruteForceRegions()
    var keys: [(RegionOwner, RegionID)] = []
    var serial = 0
    var now = Instant(secondsSinceEpoch: 1_780_000_000)
    func register(_ n: Int) {
      for _ in 0..<n {
        serial += 1
        let owner = RegionOwner(UInt32(serial % 5))
        let region = Self.region(serial, &rng)
        #expect(monitor.handle(.register(owner, region), at: now) == [.registered(owner, region.id)])
        reference.add(owner, region)
        keys.append((owner, region.id))
      }
    }
    func unregister(_ n: Int) {
      var left = n
      while left > 0 {
        let i = Int.random(in: 0..<keys.count, using: &rng)
        guard reference.state(i) != nil else { continue }
        left -= 1
        let (owner, id) = keys[i]
        #expect(monitor.handle(.unregister(owner, id), at: now) == [.unregistered(owner, id)])
        reference.remove(i)
      }
    }
    var mismatches = 0
    var outputs = 0
    var position = Coordinate(lat: 59.91, lon: 10.75)!
    func fixes(_ n: Int) {
      for _ in 0..<n {
        now = now.adding(seconds: 1)
        // Walk around a spot, now and then jump to another one.
        if Double.random(in: 0..<1, using: &rng) < 0.05 {
          position = Self.region(0, &rng).centre
        } else {
          let bearing = Degrees(Double.random(in: 0..<360, using: &rng))
          position = position.destination(distance: 15, bearing: bearing)
        }
        let accuracy = Double.random(in: 1..<20, using: &rng)
        let got = monitor.handle(.fix(position, accuracy: Meters(accuracy)), at: now)
          .sorted(by: RegionOutput.inOrder)
        let want = reference.fix(position, accuracy: accuracy, at: now)
        outputs += want.count
        if got != want {
          mismatches += 1
          if mismatches <= 3 { Issue.record("monitor \(got), brute force \(want)") }
        }
      }
    }
    register(8_000)
    fixes(200)
    let before = monitor.store.cells.compactions
    for _ in 0..<8 {
      unregister(800)
      fixes(50)
    }
    #expect(monitor.store.cells.compactions > before)
    for _ in 0..<10 {
      register(400)
      fixes(30)
      unregister(250)
      fixes(30)
    }
    #expect(mismatches == 0)
    #expect(outputs > 1_000)
    for i in keys.indices where monitor.state(of: keys[i].1, for: keys[i].0) != reference.state(i) {
      Issue.record("state of \(keys[i].1) differs")
    }
  }
}
