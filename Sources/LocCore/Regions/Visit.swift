/// A place where the device stayed (CLVisit): where, how precisely, from when, and until
/// when once it has left. Only the current one is kept, in memory.
public struct Visit: Hashable, Sendable {
  /// The mean of the fixes of the stay.
  public var coordinate: Coordinate
  /// The root mean square of those fixes' accuracies: how far the place may be from
  /// `coordinate`, at the fixes' own confidence.
  public var accuracy: Meters
  /// The first fix of the stay.
  public var arrival: Instant
  /// The last fix of the stay, once the device has left; `nil` while it is there.
  public var departure: Instant?

  /// A visit.
  public init(coordinate: Coordinate, accuracy: Meters, arrival: Instant, departure: Instant? = nil) {
    self.coordinate = coordinate
    self.accuracy = accuracy
    self.arrival = arrival
    self.departure = departure
  }
}

/// What a `VisitMonitor` reports.
public enum VisitEvent: Hashable, Sendable {
  /// The device has stayed at a place for the minimum stay; `departure` is nil.
  case arrived(Visit)
  /// The device has left the place of the current visit; both instants are set.
  case departed(Visit)
}
