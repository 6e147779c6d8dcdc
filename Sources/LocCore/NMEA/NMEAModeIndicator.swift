/// The FAA mode indicator of NMEA 2.3 and later (last field of RMC, GLL, VTG; one letter per
/// system in GNS): how the receiver obtained the position.
public enum NMEAModeIndicator: UInt8, Hashable, Sendable {
  /// `A`: autonomous.
  case autonomous = 0x41
  /// `D`: differential (SBAS, DGPS).
  case differential = 0x44
  /// `E`: estimated (dead reckoning).
  case estimated = 0x45
  /// `F`: RTK float.
  case rtkFloat = 0x46
  /// `M`: manual input.
  case manual = 0x4D
  /// `N`: no fix, data not valid.
  case noFix = 0x4E
  /// `P`: precise (no degradation, e.g. military P-code).
  case precise = 0x50
  /// `R`: RTK fixed integers.
  case rtkFixed = 0x52
  /// `S`: simulator.
  case simulator = 0x53

  /// Whether the indicator says the position is usable at all.
  @inlinable public var hasFix: Bool { self != .noFix }

  /// The matching fix quality; `nil` for no fix.
  public var quality: FixQuality? {
    switch self {
    case .autonomous: return .gps
    case .differential: return .dgps
    case .estimated: return .deadReckoning
    case .rtkFloat: return .rtkFloat
    case .manual: return .manual
    case .noFix: return nil
    case .precise: return .pps
    case .rtkFixed: return .rtkFixed
    case .simulator: return .simulated
    }
  }
}
