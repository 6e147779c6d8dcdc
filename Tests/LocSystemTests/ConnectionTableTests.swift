import LocCore
import Testing

@testable import LocSystem

/// The server's connection table: lookups by id, and the walk that sends one line to many
/// (ConnectionTable.forEach(among:)) held to a plain dictionary's answer on random tables,
/// random recipient lists (sorted as the engine gives them, and shuffled), removals and ids
/// inserted out of order.
@Suite struct ConnectionTableTests {
  final class Stub: SessionKeyed {
    let id: SessionID
    init(_ raw: UInt64) { id = SessionID(raw) }
  }

  /// The ids `forEach(among:)` visits, in its order.
  static func visited(_ table: ConnectionTable<Stub>, _ ids: [SessionID]) -> [UInt64] {
    var out: [UInt64] = []
    table.forEach(among: ids) { out.append($0.id.raw) }
    return out
  }

  @Test func theWalkFindsExactlyTheHeldRecipientsInTheirOrder() {
    var rng = SystemRandomNumberGenerator()
    for round in 0..<200 {
      var table = ConnectionTable<Stub>()
      var reference: [UInt64: Stub] = [:]
      // Ids grow with gaps (other faces take some), as the shared counter gives them.
      var next: UInt64 = 1
      for _ in 0..<Int.random(in: 0...300, using: &rng) {
        next += UInt64.random(in: 1...3, using: &rng)
        let stub = Stub(next)
        table.insert(stub)
        reference[next] = stub
      }
      // Some leave.
      for id in reference.keys.shuffled(using: &rng).prefix(reference.count / 3) {
        table.remove(SessionID(id))
        reference[id] = nil
      }
      #expect(table.count == reference.count)
      #expect(table.ordered.map(\.id.raw) == reference.keys.sorted(), "round \(round)")
      // Recipients: held and no longer held ids, ascending (the engine's lists) or not.
      let candidates = (1...(next + 2)).filter { _ in Bool.random(using: &rng) }
      var ids = candidates.map { SessionID($0) }
      if round % 4 == 3 { ids.shuffle(using: &rng) }
      let expected = ids.map(\.raw).filter { reference[$0] != nil }
      #expect(Self.visited(table, ids) == expected, "round \(round)")
      for id in candidates { #expect(table[SessionID(id)] === reference[id]) }
    }
  }

  @Test func anIdBelowTheLastIsKeptInOrderAndAReplacementTakesItsPlace() {
    var table = ConnectionTable<Stub>()
    for raw in [5, 9, 2, 7] as [UInt64] { table.insert(Stub(raw)) }
    #expect(table.ordered.map(\.id.raw) == [2, 5, 7, 9])
    let again = Stub(7)
    table.insert(again)
    #expect(table.count == 4 && table[SessionID(7)] === again && table.ordered[2] === again)
    #expect(Self.visited(table, [SessionID(9), SessionID(2), SessionID(7), SessionID(7)]) == [9, 2, 7, 7])
    table.remove(SessionID(3))
    table.remove(SessionID(5))
    #expect(table.ordered.map(\.id.raw) == [2, 7, 9])
    table.removeAll()
    #expect(table.count == 0 && Self.visited(table, [SessionID(2)]) == [])
  }
}
