/// Which app sessions may receive each gated kind of event now, as the gate decided when
/// something about them last changed: the ones that get it at full accuracy, at reduced
/// accuracy, and the ones whose events are held. Kept in id order for the effects, so
/// publishing costs nothing for sessions that are not in it.
struct DeliveryIndex: Sendable, Hashable {
  /// Where a session stands for one kind.
  enum Slot: Sendable, Hashable {
    case full, reduced, held
  }

  /// The sessions of one kind, by slot.
  struct Lists: Sendable, Hashable {
    var full: [SessionID] = []
    var reduced: [SessionID] = []
    var held: [SessionID] = []

    var isEmpty: Bool { full.isEmpty && reduced.isEmpty && held.isEmpty }

    mutating func remove(_ id: SessionID) {
      for slot in [Slot.full, .reduced, .held] { Lists.remove(id, from: &self[slot]) }
    }

    subscript(slot: Slot) -> [SessionID] {
      get {
        switch slot {
        case .full: return full
        case .reduced: return reduced
        case .held: return held
        }
      }
      set {
        switch slot {
        case .full: full = newValue
        case .reduced: reduced = newValue
        case .held: held = newValue
        }
      }
    }

    static func remove(_ id: SessionID, from list: inout [SessionID]) {
      let i = position(of: id, in: list)
      if i < list.count, list[i] == id { list.remove(at: i) }
    }

    static func insert(_ id: SessionID, into list: inout [SessionID]) {
      let i = position(of: id, in: list)
      if i < list.count, list[i] == id { return }
      list.insert(id, at: i)
    }

    /// The first index whose id is not below `id` (binary search).
    static func position(of id: SessionID, in list: [SessionID]) -> Int {
      var low = 0
      var high = list.count
      while low < high {
        let mid = (low + high) / 2
        if list[mid] < id { low = mid + 1 } else { high = mid }
      }
      return low
    }
  }

  private var kinds: [EventKind: Lists] = [:]
  /// Apps not connected whose events of a kind are queued (always, registered).
  private(set) var absent: [EventKind: Set<AppKey>] = [:]
  /// Sessions whose location updates have a distance filter.
  var filtered: Set<SessionID> = []

  /// The sessions of `kind`.
  func lists(_ kind: EventKind) -> Lists { kinds[kind] ?? Lists() }

  /// Where `id` stands for `kind`.
  func slot(_ id: SessionID, _ kind: EventKind) -> Slot? {
    let l = lists(kind)
    for slot in [Slot.full, .reduced, .held] {
      let i = Lists.position(of: id, in: l[slot])
      if i < l[slot].count, l[slot][i] == id { return slot }
    }
    return nil
  }

  /// Puts `id` in `slot` for `kind` (nil: in none).
  mutating func set(_ id: SessionID, _ kind: EventKind, _ slot: Slot?) {
    var lists = kinds[kind] ?? Lists()
    lists.remove(id)
    if let slot { Lists.insert(id, into: &lists[slot]) }
    kinds[kind] = lists.isEmpty ? nil : lists
  }

  /// Takes `id` out of every kind.
  mutating func remove(_ id: SessionID) {
    for kind in Array(kinds.keys) { set(id, kind, nil) }
    filtered.remove(id)
  }

  /// Marks `key` as absent and queued for `kind` (or not).
  mutating func setAbsent(_ key: AppKey, _ kind: EventKind, _ queued: Bool) {
    if queued {
      absent[kind, default: []].insert(key)
    } else {
      absent[kind]?.remove(key)
      if absent[kind]?.isEmpty == true { absent[kind] = nil }
    }
  }
}
