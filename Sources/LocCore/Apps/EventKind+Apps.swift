extension EventKind {
  /// The kinds an app session may subscribe to. Issues 12-13 add regions, visits and beacons.
  public static let forApps: Set<EventKind> = [.location, .significantChange, .authorization]

  /// Whether an app gets it only through the gate (authorization × in use × accuracy): the
  /// kinds that carry a position.
  public var isGated: Bool {
    switch self {
    case .location, .significantChange: return true
    default: return false
    }
  }

  /// Whether it is a monitoring event that needs always while the app is not in use: held
  /// for a provisional always app while the person is asked to upgrade, queued for an always
  /// app that is not connected. Continuous updates (`location`) are neither: they stop when
  /// the app is not in use (unless it has always, or background updates it started in use).
  public var needsAlways: Bool { self == .significantChange }
}
