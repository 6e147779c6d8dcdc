/// Reduced accuracy: positions snapped to the centre of a fixed grid of cells about 5 km on
/// a side, the same for every app and every run (docs/APPS.md, "Reduced accuracy").
///
/// Rows are `cellSize` high (0.0449° of latitude); each row is cut into as many equal
/// columns as make them about `cellSize` wide at the row's middle latitude, so cells stay
/// roughly square from the equator to the poles (a row near a pole is one cell). An app
/// with reduced accuracy gets the centre of the cell, with the accuracy of the cell: the
/// radius of the circle through its corners, so the true position is always inside it.
///
/// The cell is kept while the position stays within `margin` of it, so a device on the
/// line between two cells does not flip between them (and a flip does not tell when it
/// crossed a known line); it moves on once the position is `margin` into another cell.
public struct ReducedGrid: Sendable, Hashable {
  /// A cell: its row and column.
  public struct Cell: Sendable, Hashable {
    /// Row from the south pole.
    public var row: Int
    /// Column from the antimeridian, eastwards.
    public var column: Int
  }

  /// The side of a cell: 5 km. Large enough to hold a small town (25 km²), so a cell does
  /// not single out a house; five times the 1 km of a significant change; a sunrise or
  /// sunset computed anywhere in it is within about 20 s of the true one.
  public static let cellSize = Meters(5000)
  /// How far into another cell a position must be before the cell changes: 1 km.
  public static let margin = Meters(1000)
  /// Metres per degree of latitude (the mean sphere).
  static let metersPerDegree = Coordinate.meanEarthRadius.value * .pi / 180
  /// The height of a row in degrees.
  static let rowHeight = cellSize.value / metersPerDegree
  /// Rows from pole to pole.
  static let rows = Int((180 / rowHeight).rounded(.up))

  /// The cell reported now (nil before the first position).
  public private(set) var current: Cell?

  /// A grid with no cell yet.
  public init() {}

  /// The cell holding `c`.
  public static func cell(of c: Coordinate) -> Cell {
    let row = min(rows - 1, max(0, Int(((c.latitude.value + 90) / rowHeight).rounded(.down))))
    let n = columns(row)
    let width = 360 / Double(n)
    let column = min(n - 1, max(0, Int(((c.longitude.value + 180) / width).rounded(.down))))
    return Cell(row: row, column: column)
  }

  /// Columns in `row`: about `cellSize` wide at its middle latitude, at least one.
  static func columns(_ row: Int) -> Int {
    let middle = -90 + (Double(row) + 0.5) * rowHeight
    let circumference = 360 * metersPerDegree * Maths.cos(min(90, middle) * .pi / 180)
    return max(1, Int((circumference / cellSize.value).rounded(.down)))
  }

  /// The bounds of `cell` in degrees: south, north, west, east.
  static func bounds(_ cell: Cell) -> (south: Double, north: Double, west: Double, east: Double) {
    let south = -90 + Double(cell.row) * rowHeight
    let width = 360 / Double(columns(cell.row))
    let west = -180 + Double(cell.column) * width
    return (south, min(90, south + rowHeight), west, west + width)
  }

  /// The centre of `cell`.
  public static func centre(_ cell: Cell) -> Coordinate {
    let b = bounds(cell)
    return Coordinate(lat: (b.south + b.north) / 2, lon: (b.west + b.east) / 2)!
  }

  /// The radius of the circle around the centre of `cell` through its farthest corner.
  public static func radius(_ cell: Cell) -> Meters {
    let b = bounds(cell)
    let c = centre(cell)
    let corners = [(b.south, b.west), (b.south, b.east), (b.north, b.west), (b.north, b.east)]
    let far = corners.map { c.distance(to: Coordinate(lat: $0.0, lon: $0.1)!).value }.max() ?? 0
    return Meters(far.rounded(.up))
  }

  /// Whether `c` is inside `cell` grown by `margin` on every side.
  static func isNear(_ c: Coordinate, _ cell: Cell) -> Bool {
    let b = bounds(cell)
    let dLat = margin.value / metersPerDegree
    let lat = c.latitude.value
    guard lat >= b.south - dLat, lat <= b.north + dLat else { return false }
    let cosine = Maths.cos(min(89.9, abs(lat)) * .pi / 180)
    let dLon = min(180, dLat / max(cosine, 1e-3))
    var lon = c.longitude.value
    // Compare across the antimeridian on the cell's side.
    let middle = (b.west + b.east) / 2
    if lon - middle > 180 { lon -= 360 } else if middle - lon > 180 { lon += 360 }
    return lon >= b.west - dLon && lon <= b.east + dLon
  }

  /// Moves to the position `c`; returns whether the cell changed.
  public mutating func observe(_ c: Coordinate) -> Bool {
    if let current, ReducedGrid.isNear(c, current) { return false }
    let cell = ReducedGrid.cell(of: c)
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
