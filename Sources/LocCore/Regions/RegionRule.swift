/// The accuracy rule that decides a region's state from one fix (docs/REGIONS.md, "The
/// rule"). One place, so the monitor, its index and the documentation say the same thing.
///
/// With `d` the great-circle distance from the fix to the centre (`Coordinate.distance`),
/// `r` the radius and `m = max(accuracyFactor × accuracy, marginFloor)`, the accuracy being
/// the fix's 68% radius (`Fix.horizontalAccuracy`):
/// - inside when `d <= r - m`: a circle of radius `m` around the fix (three times its
///   accuracy circle, at least the floor) is inside;
/// - outside when `d >= r + m`: all of that circle is outside;
/// - straddling otherwise: the fix cannot tell, and no state changes. In particular a fix
///   whose accuracy circle straddles the boundary never moves a state.
/// A change of a known state also needs the new side to hold for `confirmation`.
public struct RegionRule: Hashable, Sendable {
  /// The margin is this many times the fix's 68% accuracy radius: 3 (4.5 sigma of a normal
  /// error). A receiver parked on the line whose error wanders as slowly as real ones do (a
  /// Gauss-Markov process with a time constant of one to five minutes) and as far as its
  /// accuracy says then stays beyond the margin for 20 s so rarely that 20 simulated days
  /// showed none; at 2 it flipped about once a day, at 1 (the accuracy circle alone) 4 to
  /// 56 times a day (docs/REGIONS.md, "Why these numbers").
  public var accuracyFactor = 3.0
  /// The margin never goes below this, whatever accuracy a receiver claims: 5 m, about a
  /// consumer receiver's open-sky 1-sigma error, so an over-confident accuracy (RTK-grade
  /// figures from a receiver that wanders by metres) cannot make a boundary flap.
  public var marginFloor: Meters = 5
  /// A known state flips only when every fix for this long says the other side by the
  /// margin, the crossing first seen at the start of it. 20 s, the wait Core Location
  /// documents for its own boundary crossings; it outlasts multipath bursts of a few seconds.
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

  /// The margin for a fix with this 68% accuracy radius:
  /// `max(accuracyFactor × accuracy, marginFloor)`.
  @inlinable public func margin(accuracy: Meters) -> Double {
    max(accuracyFactor * accuracy.value, marginFloor.value)
  }

  /// The verdict for a fix `distance` from the centre of a region of `radius`, with
  /// `margin` from `margin(accuracy:)`.
  @inlinable public static func verdict(distance: Double, radius: Double, margin: Double) -> Verdict {
    if distance <= radius - margin { return .inside }
    if distance >= radius + margin { return .outside }
    return .straddling
  }
}
