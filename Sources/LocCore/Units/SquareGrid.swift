/// A fixed grid of roughly square cells over the whole Earth, the same for every run: rows
/// `side` high (in degrees of latitude on the mean sphere), each row cut into as many equal
/// columns as make them about `side` wide at the row's middle latitude, so cells stay
/// roughly square from the equator to the poles (a row near a pole is one cell). Reduced
/// accuracy snaps positions to a 5 km grid (`ReducedGrid`), the light/dark schedule to a
/// 25 km one (`LightDarkPlace`).
public struct SquareGrid: Sendable, Hashable {
  /// A cell: its row and column.
  public struct Cell: Sendable, Hashable {
    /// Row from the south pole.
    public var row: Int
    /// Column from the antimeridian, eastwards.
    public var column: Int
  }

  /// The side of a cell.
  public let side: Meters
  /// How far into another cell a position must be before a follower of the grid changes
  /// cell (`isNear`).
  public let margin: Meters
  /// The height of a row in degrees.
  let rowHeight: Double
  /// Rows from pole to pole.
  let rows: Int

  /// Metres per degree of latitude (the mean sphere).
  static let metersPerDegree = Coordinate.meanEarthRadius.value * .pi / 180

  /// A grid of cells `side` on a side, followed with `margin` of hysteresis.
  public init(side: Meters, margin: Meters) {
    self.side = side
    self.margin = margin
    rowHeight = side.value / SquareGrid.metersPerDegree
    rows = Int((180 / rowHeight).rounded(.up))
  }

  /// The cell holding `c`.
  public func cell(of c: Coordinate) -> Cell {
    let row = min(rows - 1, max(0, Int(((c.latitude.value + 90) / rowHeight).rounded(.down))))
    let n = columns(row)
    let width = 360 / Double(n)
    let column = min(n - 1, max(0, Int(((c.longitude.value + 180) / width).rounded(.down))))
    return Cell(row: row, column: column)
  }

  /// Columns in `row`: about `side` wide at its middle latitude, at least one.
  func columns(_ row: Int) -> Int {
    let middle = -90 + (Double(row) + 0.5) * rowHeight
    let circumference = 360 * SquareGrid.metersPerDegree * Maths.cos(min(90, middle) * .pi / 180)
    return max(1, Int((circumference / side.value).rounded(.down)))
  }

  /// The bounds of `cell` in degrees: south, north, west, east.
  func bounds(_ cell: Cell) -> (south: Double, north: Double, west: Double, east: Double) {
    let south = -90 + Double(cell.row) * rowHeight
    let width = 360 / Double(columns(cell.row))
    let west = -180 + Double(cell.column) * width
    return (south, min(90, south + rowHeight), west, west + width)
  }

  /// The centre of `cell`.
  public func centre(_ cell: Cell) -> Coordinate {
    let b = bounds(cell)
    return Coordinate(lat: (b.south + b.north) / 2, lon: (b.west + b.east) / 2)!
  }

  /// The radius of the circle around the centre of `cell` through its farthest corner.
  public func radius(_ cell: Cell) -> Meters {
    let b = bounds(cell)
    let c = centre(cell)
    let corners = [(b.south, b.west), (b.south, b.east), (b.north, b.west), (b.north, b.east)]
    let far = corners.map { c.distance(to: Coordinate(lat: $0.0, lon: $0.1)!).value }.max() ?? 0
    return Meters(far.rounded(.up))
  }

  /// Whether `c` is inside `cell` grown by `margin` on every side.
  public func isNear(_ c: Coordinate, _ cell: Cell) -> Bool {
    let b = bounds(cell)
    let dLat = margin.value / SquareGrid.metersPerDegree
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

  /// The cell to report for `c` when `current` was reported before (nil: none yet): kept
  /// while `c` is within `margin` of it, so a device on the line between two cells does not
  /// flip between them (and a flip does not tell when it crossed a known line).
  public func follow(_ c: Coordinate, from current: Cell?) -> Cell {
    if let current, isNear(c, current) { return current }
    return cell(of: c)
  }
}
