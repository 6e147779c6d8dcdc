import LocCore

/// A client's DistanceThreshold and TimeThreshold, and GeoClue's rule for them
/// (gclue-service-client.c, below_threshold): a new location is signalled unless it is
/// closer than the distance threshold to, or less than the time threshold apart from, the
/// location last signalled to that client. Zero turns a threshold off.
public struct GeoClueThresholds: Sendable, Hashable {
  /// Metres (DistanceThreshold).
  public var distance: UInt32 = 0
  /// Seconds (TimeThreshold).
  public var time: UInt32 = 0

  /// No thresholds.
  public init(distance: UInt32 = 0, time: UInt32 = 0) {
    self.distance = distance
    self.time = time
  }

  /// Whether `new` is to be signalled, given what was last signalled (nil: nothing yet, so
  /// yes). Identical values are never signalled twice (a tier change of the same fix).
  public func signals(_ new: GeoClueLocationValues, after last: GeoClueLocationValues?) -> Bool {
    guard let last else { return true }
    if new == last { return false }
    if distance > 0, new.coordinate.distance(to: last.coordinate).value < Double(distance) { return false }
    if time > 0 {
      let apart = abs(new.time.microsecondsSinceEpoch - last.time.microsecondsSinceEpoch)
      if apart < Int64(time) * 1_000_000 { return false }
    }
    return true
  }
}
