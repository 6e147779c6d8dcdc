/// How far the nearest time-zone border is, estimated with zone lookups alone: probe rings of
/// growing radius (25 m, 50 m, ... up to a limit) on evenly spaced bearings, and where the
/// zone differs, bisect along that bearing. A border narrower than the gap between two
/// bearings at that radius (about 2π·r/bearings) can be missed; the answer is never closer
/// than the truth. Cheap where it matters: a point deep inside a zone costs
/// rings × bearings lookups (10 × 32 for 10 km), each well under a microsecond.
public enum BorderProbe {
  /// How far the probe looks by default: 10 km.
  public static let reach = Meters(10_000)

  /// The distance from `origin` to the nearest point whose zone differs from `origin`'s,
  /// if one lies within `limit`; nil when none does or `origin` has no zone.
  public static func distance(
    from origin: Coordinate, limit: Meters = reach, bearings: Int = 32, zoneAt: (Coordinate) -> String?
  ) -> Meters? {
    guard let home = zoneAt(origin), bearings > 0 else { return nil }
    var inner = 0.0
    var radius = 25.0
    while inner < limit.value {
      let r = min(radius, limit.value)
      var best: Double? = nil
      for k in 0..<bearings {
        let bearing = Degrees(Double(k) * 360 / Double(bearings))
        guard zoneAt(origin.destination(distance: Meters(r), bearing: bearing)) != home else { continue }
        // The zone changes between `inner` and `r` on this bearing: bisect to a metre or so.
        var low = inner
        var high = r
        while high - low > max(1, high * 0.001) {
          let mid = (low + high) / 2
          if zoneAt(origin.destination(distance: Meters(mid), bearing: bearing)) == home {
            low = mid
          } else {
            high = mid
          }
        }
        best = min(best ?? high, high)
      }
      if let best { return Meters(best) }
      inner = r
      radius *= 2
    }
    return nil
  }
}
