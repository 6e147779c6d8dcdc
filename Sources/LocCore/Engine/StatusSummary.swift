/// What the systemd STATUS= line says, as values ("3D fix, 9 sats, ±4 m, Europe/Oslo"):
/// compared on every event and turned into text only when it changes. The one part that is
/// text already is the resolver's reason in degraded mode, which the resolver builds anyway.
struct StatusSummary: Sendable, Equatable {
  /// The parts reported at once when they change (the rest waits for the throttle).
  struct Major: Sendable, Equatable {
    var tier: PositionTier
    var mode: FixMode?
    var zone: String
  }

  var tier: PositionTier
  var mode: FixMode?
  var quality: FixQuality?
  var satellites: Int?
  var accuracy: Int?
  /// The cached position's age, rounded down to the unit the line shows it in.
  var age: Duration?
  var zone: String
  var reason: String?

  /// The summary of a resolved position, the latest fix and the zone in effect.
  init(_ resolved: ResolvedPosition, fix: Fix?, zone: String) {
    tier = resolved.tier
    self.zone = zone
    switch resolved.tier {
    case .fix:
      mode = fix?.mode
      quality = fix?.quality
      satellites = fix?.satellitesUsed
      accuracy = fix?.horizontalAccuracy.map { Int($0.value.rounded()) }
    case .cached: age = StatusSummary.coarse(resolved.age)
    case .manual: break
    case .none: reason = resolved.reason
    }
  }

  /// The parts reported at once when they change.
  var major: Major { Major(tier: tier, mode: mode, zone: zone) }

  /// The line.
  var line: String {
    var parts: [String] = []
    switch tier {
    case .fix:
      var head = mode == .threeD ? "3D fix" : "2D fix"
      if let q = quality, q != .gps { head += " (\(q.rawValue))" }
      parts.append(head)
      if let n = satellites { parts.append("\(n) sats") }
      if let a = accuracy { parts.append("±\(a) m") }
    case .cached: parts.append("cached position, \(TimeFormat.coarseAge(age)) old")
    case .manual: parts.append("manual location")
    case .none: parts.append("no position")
    }
    parts.append(zone)
    if let reason { parts.append(reason) }
    return parts.joined(separator: ", ")
  }

  /// `age` rounded down to what `TimeFormat.coarseAge` shows (under a minute, whole minutes,
  /// hours, days), so that two ages compare equal exactly when they read the same.
  static func coarse(_ age: Duration?) -> Duration? {
    guard let age else { return nil }
    let s = Int64(age.seconds.rounded(.down))
    let unit: Int64 = s < 60 ? 0 : s < 3600 ? 60 : s < 172_800 ? 3600 : 86_400
    return unit == 0 ? .zero : .seconds(s / unit * unit)
  }
}
