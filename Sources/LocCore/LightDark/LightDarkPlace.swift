/// Where light/dark schedules are worked out: never the position itself, but the centre of
/// the 25 km cell of a `SquareGrid` that holds it (decision 0065, docs/PRIVACY.md). The
/// schedule goes to every local user without any authorization, so what its times tell must
/// stay at city level: a sunset time to the second pins a longitude to about 300 m, while
/// any time of the cell's centre tells the cell and nothing finer.
///
/// The cell is kept while the position stays within 5 km of it (the grid's margin), so a
/// device on a cell's edge does not flip the schedule back and forth, and the change does not
/// tell the moment a known line was crossed.
struct LightDarkPlace: Sendable, Hashable {
  /// Cells 25 km on a side (0.225° of latitude), followed with 5 km of hysteresis.
  static let grid = SquareGrid(side: Meters(25_000), margin: Meters(5_000))

  /// The cell in use (nil: no position).
  private(set) var cell: SquareGrid.Cell?

  /// A place with no position yet.
  init() {}

  /// Follows the position `c` (nil: there is none); returns the centre of the cell in use.
  mutating func follow(_ c: Coordinate?) -> Coordinate? {
    guard let c else {
      cell = nil
      return nil
    }
    let next = LightDarkPlace.grid.follow(c, from: cell)
    cell = next
    return LightDarkPlace.grid.centre(next)
  }
}
