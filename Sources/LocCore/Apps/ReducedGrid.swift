/// Reduced accuracy: positions snapped to the centre of a fixed grid of cells about 5 km on
/// a side, the same for every app and every run (docs/APPS.md, "Reduced accuracy").
///
/// The cells are a `SquareGrid`'s: rows `cellSize` high (0.0449° of latitude), each cut
/// into columns about `cellSize` wide at the row's middle latitude. An app
/// with reduced accuracy gets the centre of the cell, with the accuracy of the cell: the
/// radius of the circle through its corners, so the true position is always inside it.
///
/// The cell is kept while the position stays within `margin` of it, so a device on the
/// line between two cells does not flip between them (and a flip does not tell when it
/// crossed a known line); it moves on once the position is `margin` into another cell.
public struct ReducedGrid: Sendable, Hashable {
  /// A cell: its row and column.
  public typealias Cell = SquareGrid.Cell

  /// The side of a cell: 5 km. Large enough to hold a small town (25 km²), so a cell does
  /// not single out a house; five times the 1 km of a significant change; a sunrise or
  /// sunset computed anywhere in it is within about 20 s of the true one.
  public static let cellSize = Meters(5000)
  /// How far into another cell a position must be before the cell changes: 1 km.
  public static let margin = Meters(1000)
  /// The grid.
  static let grid = SquareGrid(side: cellSize, margin: margin)

  /// The cell reported now (nil before the first position).
  public private(set) var current: Cell?

  /// A grid with no cell yet.
  public init() {}

  /// The cell holding `c`.
  public static func cell(of c: Coordinate) -> Cell { grid.cell(of: c) }

  /// The centre of `cell`.
  public static func centre(_ cell: Cell) -> Coordinate { grid.centre(cell) }

  /// The radius of the circle around the centre of `cell` through its farthest corner.
  public static func radius(_ cell: Cell) -> Meters { grid.radius(cell) }

  /// Moves to the position `c`; returns whether the cell changed.
  public mutating func observe(_ c: Coordinate) -> Bool {
    let cell = ReducedGrid.grid.follow(c, from: current)
    defer { current = cell }
    return cell != current
  }

  /// `p` as an app with reduced accuracy sees it: the centre of the current cell (the cell
  /// of `p` when there is none yet), the cell's radius or `p`'s accuracy if worse, no
  /// altitude and no name; its provenance kept (a reduced Wi-Fi position is still Wi-Fi's:
  /// GeoClue's Description said `gnss`, issue 43).
  public func snapped(_ p: Position) -> Position {
    ReducedGrid.snapped(p, to: current ?? ReducedGrid.cell(of: p.coordinate))
  }

  /// `p` snapped to its own cell, without the hysteresis (a past position, e.g. where a
  /// significant move started).
  public static func snapped(_ p: Position) -> Position { snapped(p, to: cell(of: p.coordinate)) }

  static func snapped(_ p: Position, to cell: Cell) -> Position {
    let radius = ReducedGrid.radius(cell)
    let accuracy = p.accuracy.map { max($0, radius) } ?? radius
    return Position(
      coordinate: ReducedGrid.centre(cell), accuracy: accuracy, altitude: nil, time: p.time,
      receivedAt: p.receivedAt, source: p.source, name: nil, origin: p.origin)
  }
}
