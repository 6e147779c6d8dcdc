/// When a move is significant enough to regenerate everything that depends on the place:
/// farther from the last regeneration point than the threshold plus both accuracy radii, so
/// that noise inside the circles never counts as movement.
public struct SignificancePolicy: Sendable, Hashable {
  /// The distance that counts (locd.conf `SignificantDistance=`, default 1 km).
  public var threshold: Meters

  /// A policy.
  public init(threshold: Meters) { self.threshold = threshold }

  /// A significant move and how far it went (nil for the first position ever).
  public struct Move: Sendable, Hashable {
    /// Distance from the last regeneration point; nil when there was none.
    public var distance: Meters?
  }

  /// The move from the regeneration point `from` to `to`, if it is significant.
  public func evaluate(from: Position?, to: Position) -> Move? {
    guard let from else { return Move(distance: nil) }
    let distance = from.coordinate.distance(to: to.coordinate)
    let needed = threshold.value + (from.accuracy?.value ?? 0) + (to.accuracy?.value ?? 0)
    return distance.value > needed ? Move(distance: distance) : nil
  }
}
