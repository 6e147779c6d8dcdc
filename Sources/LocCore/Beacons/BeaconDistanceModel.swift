/// How near a ranged beacon is, in Core Location's four steps (CLProximity).
public enum BeaconProximity: String, Hashable, Sendable, CaseIterable, Comparable {
  /// Within `BeaconDistanceModel.immediateBelow` (half a metre by default).
  case immediate
  /// Within `BeaconDistanceModel.nearBelow` (3 m by default).
  case near
  /// Further.
  case far
  /// Not known: no recent signal, or no plausible measured power to compare it with.
  case unknown

  /// The order of a ranged list: nearest first, unknown last.
  public var rank: Int {
    switch self {
    case .immediate: return 0
    case .near: return 1
    case .far: return 2
    case .unknown: return 3
    }
  }

  public static func < (a: BeaconProximity, b: BeaconProximity) -> Bool { a.rank < b.rank }
}

/// Turns a smoothed RSSI and a beacon's measured power into a distance estimate and a
/// proximity, with the log-distance path-loss model:
///
///     distance = 1 m × 10^((measuredPower − rssi) / (10 × n))
///
/// where the measured power is what the beacon says it is received with at 1 m and `n` is the
/// path-loss exponent (2 in free space; 2...4 indoors). With the default n = 2, every 6 dB
/// weaker doubles the distance: −62 dBm at 1 m and an RSSI of −68 dBm give 2.0 m. The
/// estimate is coarse (bodies, walls and antenna orientation move an RSSI by 10 dB), which
/// is why Core Location calls it "accuracy" and why proximity has only three steps.
public struct BeaconDistanceModel: Hashable, Sendable {
  /// The path-loss exponent n.
  public var pathLossExponent: Double
  /// Below this distance a beacon is `immediate`.
  public var immediateBelow: Meters
  /// Below this distance (and not immediate) a beacon is `near`; else `far`.
  public var nearBelow: Meters

  /// A model; the defaults are free-space loss and the steps most beacon SDKs use
  /// (immediate under 0.5 m, near under 3 m).
  public init(pathLossExponent: Double = 2, immediateBelow: Meters = 0.5, nearBelow: Meters = 3) {
    self.pathLossExponent = pathLossExponent
    self.immediateBelow = immediateBelow
    self.nearBelow = nearBelow
  }

  /// The distance estimate; `nil` (unknown) without an RSSI or a plausible measured power.
  public func accuracy(rssi: DecibelMilliwatts?, calibratedPower: DecibelMilliwatts?) -> Meters? {
    guard let rssi, let calibratedPower, rssi.isPlausible, calibratedPower.isPlausible else { return nil }
    let meters = Maths.pow(10, (calibratedPower.value - rssi.value) / (10 * pathLossExponent))
    return meters.isFinite ? Meters(meters) : nil
  }

  /// The proximity of a distance estimate; `unknown` for `nil`.
  public func proximity(_ accuracy: Meters?) -> BeaconProximity {
    guard let accuracy else { return .unknown }
    if accuracy < immediateBelow { return .immediate }
    if accuracy < nearBelow { return .near }
    return .far
  }
}
