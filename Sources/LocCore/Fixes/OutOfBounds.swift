/// A number from outside locd that lay beyond what its kind of source can physically give,
/// and what was done with it (`PositionBounds`, `FixPlausibility`; docs/SOURCES.md, "Bounds").
/// Never a coordinate that could be real: a latitude or longitude is recorded only when it is
/// off the globe.
public struct OutOfBounds: Error, Sendable, Hashable, CustomStringConvertible {
  /// Which value it was.
  public enum Field: String, Sendable, Hashable, CaseIterable {
    /// Degrees north (−90…90).
    case latitude
    /// Degrees east (−180…180).
    case longitude
    /// Metres above mean sea level.
    case altitude
    /// The 68 % radius, in metres (decision 0011).
    case accuracy
    /// Speed over ground, in m/s.
    case speed
    /// Course over ground, in degrees.
    case course
    /// Height of the geoid above the WGS84 ellipsoid, in metres.
    case geoidSeparation = "geoid-separation"

    /// The unit its value and bound are in, for words.
    public var unit: String {
      switch self {
      case .latitude, .longitude, .course: return "°"
      case .altitude, .accuracy, .geoidSeparation: return " m"
      case .speed: return " m/s"
      }
    }
  }

  /// What locd did about it.
  public enum Action: String, Sendable, Hashable, CaseIterable {
    /// Not used: a fix's field is dropped (made missing), a file, an answer or a request is
    /// refused as a whole.
    case refused
    /// Used as the bound instead: an accuracy claimed below what its kind can be is raised
    /// to that floor.
    case raised
  }

  /// Which value.
  public var field: Field
  /// The value as it came (finite: what is not a number never gets this far).
  public var value: Double
  /// The bound it crossed, in the field's unit: a floor or a ceiling.
  public var bound: Double
  /// What was done.
  public var action: Action

  /// A value out of bounds.
  public init(_ field: Field, _ value: Double, bound: Double, _ action: Action) {
    self.field = field
    self.value = value
    self.bound = bound
    self.action = action
  }

  /// In words, for the log and `locctl status`: "accuracy 1e-300 m is below 10 m: raised to
  /// it", "altitude 1e+308 m is above 100000 m: refused".
  public var description: String {
    let unit = field.unit
    let side = value < bound ? "below" : value > bound ? "above" : "not above"
    let done = action == .raised ? "raised to it" : "refused"
    return "\(field.rawValue) \(Self.number(value))\(unit) is \(side) \(Self.number(bound))\(unit): \(done)"
  }

  /// `value` in words: whole numbers below 10¹⁵ without a fraction, others as Swift writes
  /// a Double (the shortest text that reads back as the same number).
  public static func number(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return "\(value)"
  }
}
