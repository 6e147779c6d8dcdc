/// The two-letter talker of an NMEA sentence (`GP` in `$GPRMC`): which system produced it.
public struct NMEATalker: Hashable, Sendable, CustomStringConvertible {
  /// The two ASCII letters, first letter in the high byte.
  public var rawValue: UInt16

  /// A talker from its two ASCII bytes.
  @inlinable public init(_ first: UInt8, _ second: UInt8) { rawValue = UInt16(first) << 8 | UInt16(second) }

  /// A talker from a two-letter string; `nil` unless exactly two ASCII characters.
  public init?(_ text: String) {
    let u = Array(text.utf8)
    guard u.count == 2, u[0] < 0x80, u[1] < 0x80 else { return nil }
    self.init(u[0], u[1])
  }

  /// GPS (and, by convention, SBAS and often QZSS).
  public static let gps = NMEATalker(0x47, 0x50)  // "GP"
  /// GLONASS.
  public static let glonass = NMEATalker(0x47, 0x4C)  // "GL"
  /// Galileo.
  public static let galileo = NMEATalker(0x47, 0x41)  // "GA"
  /// BeiDou, NMEA 4.11 talker.
  public static let beidou = NMEATalker(0x47, 0x42)  // "GB"
  /// BeiDou, the Chinese-standard talker used before NMEA 4.11.
  public static let beidouBD = NMEATalker(0x42, 0x44)  // "BD"
  /// QZSS.
  public static let qzss = NMEATalker(0x47, 0x51)  // "GQ"
  /// NavIC (IRNSS).
  public static let navic = NMEATalker(0x47, 0x49)  // "GI"
  /// A combined solution from several systems.
  public static let combined = NMEATalker(0x47, 0x4E)  // "GN"

  /// A small index per satellite system, for per-system tallies: 0 GPS, 1 GLONASS,
  /// 2 Galileo, 3 BeiDou (GB or BD), 4 QZSS, 5 NavIC, 6 combined (GN), 7 anything else.
  @inlinable public var systemSlot: Int {
    switch rawValue {
    case NMEATalker.gps.rawValue: return 0
    case NMEATalker.glonass.rawValue: return 1
    case NMEATalker.galileo.rawValue: return 2
    case NMEATalker.beidou.rawValue, NMEATalker.beidouBD.rawValue: return 3
    case NMEATalker.qzss.rawValue: return 4
    case NMEATalker.navic.rawValue: return 5
    case NMEATalker.combined.rawValue: return 6
    default: return 7
    }
  }

  /// The two letters.
  public var description: String {
    String(
      decoding: [UInt8(truncatingIfNeeded: rawValue >> 8), UInt8(truncatingIfNeeded: rawValue)], as: UTF8.self
    )
  }
}
