/// A global grid of one quantity every 5 degrees of latitude (-90...90, 37 rows) and
/// longitude (-180...180, 73 columns, the last repeating the first), read between its points by
/// bilinear interpolation. Two grids ship (data/geodesy, PROVENANCE.md there): the EGM2008 geoid
/// separation and the WMM2015 magnetic declination, the grids gpsd 3.22 fills a fix's
/// `geoidSep` and `magvar` from when the receiver gives none, so that locd's gpsd face reports
/// what gpsd reports (docs/GPSD.md). They are coarse: the separation can be several metres from
/// the full EGM2008 model's in mountains, and the declination is for 2015 (it drifts by about
/// 0.1 degree a year).
public struct GeodesyGrid: Sendable {
  /// Degrees between two grid points.
  static let span = 5.0
  /// Rows (latitudes -90, -85, ... 90) and columns (longitudes -180, -175, ... 180).
  static let rows = 37
  static let columns = 73

  /// Row-major values, south to north, west to east, in `unit`s.
  private let values: [Int16]
  /// What one stored step is worth (0.01: centimetres, or hundredths of a degree).
  private let unit: Double

  /// The grid of `text` (37 × 73 integers, whitespace between them). Traps when the count is
  /// wrong: the texts are generated into the code, checked by GeodesyGridTests.
  init(text: String, unit: Double) {
    var parsed: [Int16] = []
    parsed.reserveCapacity(GeodesyGrid.rows * GeodesyGrid.columns)
    for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
      guard let v = Int16(word) else { preconditionFailure("GeodesyGrid: '\(word)' is not a grid value") }
      parsed.append(v)
    }
    precondition(
      parsed.count == GeodesyGrid.rows * GeodesyGrid.columns, "GeodesyGrid: \(parsed.count) values")
    values = parsed
    self.unit = unit
  }

  /// The stored value at row `row` (latitude index) and column `column`, in `unit`s.
  func stored(row: Int, column: Int) -> Int { Int(values[row * GeodesyGrid.columns + column]) }

  /// The value at `latitude`, `longitude` (degrees), interpolated between the four grid points
  /// around it; nil outside -90...90 and -180...180 or for a value that is not finite.
  public func value(latitude: Double, longitude: Double) -> Double? {
    guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude),
      (-180...180).contains(longitude)
    else { return nil }
    let y = (latitude + 90) / GeodesyGrid.span
    let x = (longitude + 180) / GeodesyGrid.span
    let row = min(Int(y.rounded(.down)), GeodesyGrid.rows - 1)
    let column = min(Int(x.rounded(.down)), GeodesyGrid.columns - 1)
    let row2 = min(row + 1, GeodesyGrid.rows - 1)
    let column2 = min(column + 1, GeodesyGrid.columns - 1)
    // Weights of the far corner in each direction (0 on the last row or column).
    let fy = row2 == row ? 0 : y - Double(row)
    let fx = column2 == column ? 0 : x - Double(column)
    let south =
      Double(stored(row: row, column: column)) * (1 - fx) + Double(stored(row: row, column: column2)) * fx
    let north =
      Double(stored(row: row2, column: column)) * (1 - fx) + Double(stored(row: row2, column: column2)) * fx
    return (south * (1 - fy) + north * fy) * unit
  }

  /// The EGM2008 geoid: its height above the WGS84 ellipsoid, metres.
  public static let geoid = GeodesyGrid(text: geoidRows, unit: 0.01)
  /// The WMM2015 magnetic declination, degrees east of true north (negative: west).
  public static let declination = GeodesyGrid(text: declinationRows, unit: 0.01)

  /// The geoid's height above the ellipsoid at `coordinate` (what GGA's field 11 says).
  public static func geoidSeparation(at coordinate: Coordinate) -> Meters? {
    geoid.value(latitude: coordinate.latitude.value, longitude: coordinate.longitude.value).map { Meters($0) }
  }

  /// The magnetic declination at `coordinate` (what RMC's fields 10 and 11 say), east positive.
  public static func magneticDeclination(at coordinate: Coordinate) -> Degrees? {
    declination.value(latitude: coordinate.latitude.value, longitude: coordinate.longitude.value).map {
      Degrees($0)
    }
  }
}
