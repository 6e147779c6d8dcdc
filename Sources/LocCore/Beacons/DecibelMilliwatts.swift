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
  /// The levels a Bluetooth LE radio reports, dBm (the HCI's signed byte, 127 meaning "not
  /// available", Core Specification Vol 4 Part E 7.7.65.2, narrowed to -127...20).
  public static let radioRange = -127.0...20.0
  /// Whether a radio could have reported this level (BlueZ has sent -32768).
  public var isPlausible: Bool { DecibelMilliwatts.radioRange.contains(value) }
  public var description: String {
    value == value.rounded() ? "\(Int(value)) dBm" : "\(value) dBm"
  }
}
