/// An angle in degrees.
public struct Degrees: Hashable, Comparable, Sendable, ExpressibleByFloatLiteral,
  ExpressibleByIntegerLiteral, CustomStringConvertible
{
  /// The angle in degrees.
  public var value: Double
  /// An angle of `value` degrees.
  @inlinable public init(_ value: Double) { self.value = value }
  public init(floatLiteral value: Double) { self.value = value }
  public init(integerLiteral value: Int) { self.value = Double(value) }
  /// The angle in radians.
  @inlinable public var radians: Double { value * .pi / 180 }
  /// An angle from radians.
  @inlinable public init(radians: Double) { self.value = radians * 180 / .pi }
  @inlinable public static func < (a: Degrees, b: Degrees) -> Bool { a.value < b.value }
  public var description: String { "\(value)°" }
}

/// A length in metres.
public struct Meters: Hashable, Comparable, Sendable, ExpressibleByFloatLiteral,
  ExpressibleByIntegerLiteral, CustomStringConvertible
{
  /// The length in metres.
  public var value: Double
  /// A length of `value` metres.
  @inlinable public init(_ value: Double) { self.value = value }
  public init(floatLiteral value: Double) { self.value = value }
  public init(integerLiteral value: Int) { self.value = Double(value) }
  @inlinable public static func < (a: Meters, b: Meters) -> Bool { a.value < b.value }
  @inlinable public static func + (a: Meters, b: Meters) -> Meters { Meters(a.value + b.value) }
  public var description: String { "\(value) m" }
}

/// A speed in metres per second.
public struct MetersPerSecond: Hashable, Comparable, Sendable, ExpressibleByFloatLiteral,
  ExpressibleByIntegerLiteral
{
  /// The speed in metres per second.
  public var value: Double
  /// A speed of `value` m/s.
  @inlinable public init(_ value: Double) { self.value = value }
  public init(floatLiteral value: Double) { self.value = value }
  public init(integerLiteral value: Int) { self.value = Double(value) }
  /// A speed from knots (1 kn = 1852 m / 3600 s, by definition).
  @inlinable public init(knots: Double) { self.value = knots * 1852.0 / 3600.0 }
  /// A speed from km/h.
  @inlinable public init(kilometersPerHour: Double) { self.value = kilometersPerHour / 3.6 }
  @inlinable public static func < (a: MetersPerSecond, b: MetersPerSecond) -> Bool { a.value < b.value }
}
