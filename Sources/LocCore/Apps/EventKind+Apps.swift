extension EventKind {
  /// The kinds an app session may subscribe to. `region` events come for the app's own
  /// regions (`register-region`), `visit` events while it monitors visits.
  public static let forApps: Set<EventKind> = [
    .location, .significantChange, .authorization, .region, .visit,
  ]

  /// Whether an app gets it only through the gate (authorization × in use × accuracy): the
  /// kinds that carry or follow from a position.
  public var isGated: Bool {
    switch self {
    case .location, .significantChange, .region, .visit: return true
    default: return false
    }
  }

  /// Whether it is a monitoring event that needs always while the app is not in use: held
  /// for a provisional always app while the person is asked to upgrade, queued for an always
  /// app that is not connected. Continuous updates (`location`) are neither: they stop when
  /// the app is not in use (unless it has always, or background updates it started in use).
  public var needsAlways: Bool {
    switch self {
    case .significantChange, .region, .visit: return true
    default: return false
    }
  }

  /// Whether it needs precise positions: an app with reduced accuracy is refused it
  /// (`precise-location-required`), as Core Location refuses region monitoring then.
  public var needsPrecise: Bool { self == .region || self == .visit }
}
