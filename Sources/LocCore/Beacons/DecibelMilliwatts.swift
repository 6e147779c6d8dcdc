/// A radio power level in dBm (decibels relative to one milliwatt): an RSSI, a beacon's
/// measured power at 1 m, a transmit power.
public struct DecibelMilliwatts: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The level in dBm; fractional for smoothed values.
  public var value: Double
  /// A level of `value` dBm.
  @inlinable public init(_ value: Double) { self.value = value }
  /// A level of `value` whole dBm, as HCI and beacons send it.
  @inlinable public init(_ value: Int) { self.value = Double(value) }
  @inlinable public static func < (a: DecibelMilliwatts, b: DecibelMilliwatts) -> Bool { a.value < b.value }
  public var description: String {
    value == value.rounded() ? "\(Int(value)) dBm" : "\(value) dBm"
  }
}
