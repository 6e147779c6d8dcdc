import LocCore

/// What `ConnectionTable` holds: an object known by its session id, which never changes.
protocol SessionKeyed: AnyObject {
  var id: SessionID { get }
}

/// The server's connections, by session id and in id order. One event goes to many sessions
/// whose ids the engine lists in ascending order (its delivery lists are kept sorted): the
/// table walks its own ordered list beside them instead of hashing every id, which was a
/// fifth of locd's user-space work per recipient (callgrind, 100 subscribers). Generic only
/// so that its tests can hold plain objects; the server holds `ClientConnection`s.
struct ConnectionTable<Connection: SessionKeyed> {
  private var byID: [SessionID: Connection] = [:]
  /// The same connections, ascending by id.
  private(set) var ordered: [Connection] = []

  /// Connections held.
  var count: Int { ordered.count }

  /// The connection of `id`, if held.
  subscript(id: SessionID) -> Connection? { byID[id] }

  /// Holds `connection` (ids only grow, so it usually goes last).
  mutating func insert(_ connection: Connection) {
    if let old = byID.updateValue(connection, forKey: connection.id) {
      ordered[position(of: old.id)] = connection
      return
    }
    if let last = ordered.last, last.id > connection.id {
      ordered.insert(connection, at: position(of: connection.id))
    } else {
      ordered.append(connection)
    }
  }

  /// Lets go of the connection of `id`, if held.
  mutating func remove(_ id: SessionID) {
    guard byID.removeValue(forKey: id) != nil else { return }
    let i = position(of: id)
    if i < ordered.count, ordered[i].id == id { ordered.remove(at: i) }
  }

  /// Lets go of every connection.
  mutating func removeAll() {
    byID.removeAll()
    ordered.removeAll()
  }

  /// Calls `body` with the connection of each of `ids` that is held, in the order of `ids`.
  /// Ascending ids (the engine's recipients) cost a step along the ordered list each, found
  /// by galloping from the last one; an id below the one before is searched from the start.
  func forEach(among ids: [SessionID], _ body: (Connection) -> Void) {
    var next = 0
    var previous: SessionID? = nil
    for id in ids {
      if let p = previous, id < p { next = 0 }
      previous = id
      next = position(of: id, from: next)
      if next < ordered.count, ordered[next].id == id { body(ordered[next]) }
    }
  }

  /// The first index from `start` on whose id is not below `id`: galloping (1, 2, 4, …
  /// ahead) to a bracket, then a binary search in it.
  private func position(of id: SessionID, from start: Int = 0) -> Int {
    var low = start
    var step = 1
    var high = start
    while high < ordered.count, ordered[high].id < id {
      low = high + 1
      high += step
      step *= 2
    }
    high = min(high, ordered.count)
    while low < high {
      let mid = (low + high) / 2
      if ordered[mid].id < id { low = mid + 1 } else { high = mid }
    }
    return low
  }
}
