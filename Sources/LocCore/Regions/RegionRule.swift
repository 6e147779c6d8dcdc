/// The accuracy rule that decides a region's state from one fix (docs/REGIONS.md, "The
/// rule"). One place, so the monitor, its index and the documentation say the same thing.
///
/// With `d` the great-circle distance from the fix to the centre (`Coordinate.distance`),
/// `r` the radius and `m = max(accuracy, marginFloor)`:
/// - inside when `d <= r - m`: the whole accuracy circle, widened to the floor, is inside;
/// - outside when `d >= r + m`: all of it is outside;
/// - straddling otherwise: the fix cannot tell, and no state changes.
/// A change of a known state also needs the new side to hold for `confirmation`.
public struct RegionRule: Hashable, Sendable {
  /// The margin never goes below this, whatever accuracy a receiver claims: 5 m, about a
  /// consumer receiver's open-sky 1-sigma error, so an over-confident accuracy (RTK-grade
  /// figures from a receiver that wanders by metres) cannot make a boundary flap.
  public var marginFloor: Meters = 5
  /// A known state flips only when every fix for this long says the other side by the
  /// margin, the crossing first seen at the start of it. 20 s, Core Location's documented
  /// wait ("remain on the same side of the boundary for at least 20 seconds").
  public var confirmation: Duration = .seconds(20)

  /// The defaults.
  public init() {}

  /// What one fix says about one region.
  public enum Verdict: Hashable, Sendable {
    /// Inside by the margin.
    case inside
    /// Outside by the margin.
    case outside
    /// The accuracy circle (or the floor) straddles the boundary.
    case straddling
  }

  /// The margin for a fix with this accuracy: `max(accuracy, marginFloor)`.
  @inlinable public func margin(accuracy: Meters) -> Double {
    max(accuracy.value, marginFloor.value)
  }

  /// The verdict for a fix `distance` from the centre of a region of `radius`, with
  /// `margin` from `margin(accuracy:)`.
  @inlinable public static func verdict(distance: Double, radius: Double, margin: Double) -> Verdict {
    if distance <= radius - margin { return .inside }
    if distance >= radius + margin { return .outside }
    return .straddling
  }
}
