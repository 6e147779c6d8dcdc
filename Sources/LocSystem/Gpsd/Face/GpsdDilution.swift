import LocCore

/// The dilutions of precision gpsd 3.22 works out from the sky when the receiver does not send
/// them (`fill_dop()` in gpsd/libgpsd_core.c, read to learn the rule, code our own): the
/// line-of-sight matrix of the satellites used, one row (sin az cos el, cos az cos el, sin el,
/// 1) each, and the diagonal of the inverse of its normal matrix: x (east), y (north),
/// vertical, time. gpsd reports `xdop`, `ydop`, `tdop` and `gdop` from them in SKY, fills
/// any of HDOP, VDOP and PDOP a GSA did not give, and multiplies xdop and ydop into `epx` and
/// `epy` (docs/GPSD.md, "Error estimates").
struct GpsdDilution: Equatable, Sendable {
  var x: Double
  var y: Double
  var horizontal: Double
  var vertical: Double
  var position: Double
  var time: Double
  var geometric: Double

  /// The dilutions of `sky`'s used satellites, each counted once (a receiver that reports
  /// several signals of a satellite lists it once per signal); nil with fewer than four that
  /// have an elevation (-90...90°) and an azimuth (0...359°, gpsd's bounds), or when their
  /// geometry has no inverse (all in one plane).
  init?(_ sky: Sky) {
    var rows: [(Double, Double, Double)] = []
    var seen = Set<Int64>()
    for s in sky.satellites where s.used {
      guard let el = s.elevation, let az = s.azimuth, (0...359).contains(az), abs(el) <= 90, s.prn > 0 else {
        continue
      }
      guard seen.insert(Int64(s.constellation.rawValue) << 32 | Int64(s.svid)).inserted else { continue }
      let e = el * .pi / 180
      let a = az * .pi / 180
      rows.append((Maths.sin(a) * Maths.cos(e), Maths.cos(a) * Maths.cos(e), Maths.sin(e)))
    }
    guard rows.count >= 4 else { return nil }
    // The normal matrix AᵀA of the rows (each with a fourth column of 1).
    var m = [[Double]](repeating: [Double](repeating: 0, count: 4), count: 4)
    for (a, b, c) in rows {
      let v = [a, b, c, 1.0]
      for i in 0..<4 { for j in 0..<4 { m[i][j] += v[i] * v[j] } }
    }
    guard let inverse = GpsdDilution.inverse(m) else { return nil }
    let (xx, yy, zz, tt) = (inverse[0][0], inverse[1][1], inverse[2][2], inverse[3][3])
    guard xx >= 0, yy >= 0, zz >= 0, tt >= 0 else { return nil }
    x = xx.squareRoot()
    y = yy.squareRoot()
    horizontal = (xx + yy).squareRoot()
    vertical = zz.squareRoot()
    position = (xx + yy + zz).squareRoot()
    time = tt.squareRoot()
    geometric = (xx + yy + zz + tt).squareRoot()
  }

  /// The inverse of a 4 × 4 matrix by Gauss-Jordan elimination with partial pivoting; nil
  /// when it is singular.
  static func inverse(_ matrix: [[Double]]) -> [[Double]]? {
    var a = matrix
    var inv = (0..<4).map { i in (0..<4).map { j in i == j ? 1.0 : 0.0 } }
    for column in 0..<4 {
      var pivot = column
      for row in column..<4 where abs(a[row][column]) > abs(a[pivot][column]) { pivot = row }
      guard abs(a[pivot][column]) > 1e-12 else { return nil }
      a.swapAt(column, pivot)
      inv.swapAt(column, pivot)
      let p = a[column][column]
      for j in 0..<4 {
        a[column][j] /= p
        inv[column][j] /= p
      }
      for row in 0..<4 where row != column {
        let f = a[row][column]
        guard f != 0 else { continue }
        for j in 0..<4 {
          a[row][j] -= f * a[column][j]
          inv[row][j] -= f * inv[column][j]
        }
      }
    }
    return inv
  }
}
