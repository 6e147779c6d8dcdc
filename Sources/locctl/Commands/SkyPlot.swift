import LocCore
import LocProtocol

/// The sky as a polar plot in text, laid out like a compass card (and cgps/xgps): north up, east to
/// the right, the horizon the outer ring, rings at 30 and 60 degrees of elevation, the zenith
/// the `+` in the middle. Each satellite with a position is a mark at its azimuth and
/// elevation, `*` when the fix uses it and `o` when not, followed by its PRN where there is
/// room. Terminal cells are about twice as tall as they are wide, so the plot is twice as
/// wide as it is tall to look round.
enum SkyPlot {
  /// Rows from the zenith to the horizon (the plot is `2 × radius + 1` rows high).
  static let radius = 10

  /// The plot's lines (all the same width: `4 × radius + 1`, with room for labels).
  static func render(_ satellites: [SatelliteView]) -> [String] {
    let rows = 2 * radius + 1
    let columns = 4 * radius + 1
    var grid = Array(repeating: Array(repeating: Character(" "), count: columns), count: rows)
    let centre = (row: radius, column: 2 * radius)

    /// The cell of a point `r` (0 at the zenith, 1 on the horizon) at `azimuth` degrees.
    func cell(_ r: Double, _ azimuth: Double) -> (row: Int, column: Int) {
      let a = azimuth * Double.pi / 180
      let row = centre.row - Int((r * Maths.cos(a) * Double(radius)).rounded())
      let column = centre.column + Int((r * Maths.sin(a) * Double(2 * radius)).rounded())
      return (min(max(row, 0), rows - 1), min(max(column, 0), columns - 1))
    }
    // The rings: the horizon (0°), 30° and 60° of elevation.
    for elevation in [0.0, 30.0, 60.0] {
      for step in 0..<180 {
        let p = cell((90 - elevation) / 90, Double(step) * 2)
        grid[p.row][p.column] = "."
      }
    }
    grid[centre.row][centre.column] = "+"
    grid[0][centre.column] = "N"
    grid[rows - 1][centre.column] = "S"
    grid[centre.row][0] = "W"
    grid[centre.row][columns - 1] = "E"

    // Used satellites last, so that they are drawn over the others where marks meet.
    let placed = satellites.filter { $0.elevation != nil && $0.azimuth != nil }
    for s in placed.filter({ !$0.used }) + placed.filter(\.used) {
      let elevation = min(max(s.elevation!, 0), 90)
      let p = cell((90 - elevation) / 90, s.azimuth!)
      grid[p.row][p.column] = s.used ? "*" : "o"
      // The PRN after the mark, over rings and other satellites' numbers (the used ones come
      // last and win) but not over marks or the compass letters.
      var column = p.column + 1
      for digit in String(s.prn) {
        guard column < columns,
          grid[p.row][column] == " " || grid[p.row][column] == "."
            || grid[p.row][column].isNumber
        else { break }
        grid[p.row][column] = digit
        column += 1
      }
    }
    return grid.map { line in
      var text = ""
      for c in line.reversed().drop(while: { $0 == " " }).reversed() {
        text += c == "*" ? Style.green("*") : String(c)
      }
      return text
    }
  }
}
