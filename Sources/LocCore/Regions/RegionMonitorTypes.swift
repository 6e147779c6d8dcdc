/// Where the device stands with respect to one region (CLRegionState).
public enum RegionState: String, Hashable, Sendable {
  /// No fix has decided it yet (just registered, or every fix since straddled the boundary).
  case unknown
  /// Inside by the margin, confirmed.
  case inside
  /// Outside by the margin, confirmed.
  case outside
}

/// A change of one region's state, for one owner.
public struct RegionTransition: Hashable, Sendable {
  /// The owner.
  public var owner: RegionOwner
  /// The region.
  public var id: RegionID
  /// The state left.
  public var from: RegionState
  /// The state entered (`inside` or `outside`, never `unknown`).
  public var to: RegionState
  /// The instant of the fix that decided it.
  public var at: Instant
  /// The instant of the first fix on the new side: the crossing happened before it, after
  /// the last fix on the old side. Equal to `at` for a first determination.
  public var firstSeen: Instant
  /// Whether the app asked for this event: an entry (`to == .inside`) with
  /// `notifyOnEntry`, an exit (`inside` → `outside`) with `notifyOnExit`. A first
  /// determination as outside is never an event (nothing was left); the state is still
  /// there for `requestState`.
  public var notify: Bool

  /// A transition.
  public init(
    owner: RegionOwner, id: RegionID, from: RegionState, to: RegionState, at: Instant, firstSeen: Instant,
    notify: Bool
  ) {
    self.owner = owner
    self.id = id
    self.from = from
    self.to = to
    self.at = at
    self.firstSeen = firstSeen
    self.notify = notify
  }
}

/// What the host tells a `RegionMonitor`, each at an instant.
public enum RegionInput: Hashable, Sendable {
  /// An owner registers a region; its state starts `unknown`.
  case register(RegionOwner, CircularRegion)
  /// An owner stops monitoring one of its regions.
  case unregister(RegionOwner, RegionID)
  /// An owner stops monitoring all its regions (the app was reset or removed).
  case unregisterAll(RegionOwner)
  /// A fix: where the device is, and its horizontal accuracy as `Fix.horizontalAccuracy`
  /// gives it (the radius of 68% confidence). The input's instant is the fix's time.
  case fix(Coordinate, accuracy: Meters)
  /// Time passed (dwell deadlines); the host calls it at `nextDeadline`.
  case tick
}

/// What a `RegionMonitor` answers.
public enum RegionOutput: Hashable, Sendable {
  /// The region is monitored now.
  case registered(RegionOwner, RegionID)
  /// The region is not monitored any more.
  case unregistered(RegionOwner, RegionID)
  /// The input was refused; nothing changed.
  case refused(RegionOwner, RegionID?, RegionError)
  /// A region's state changed.
  case transition(RegionTransition)
  /// The device has been inside the region for its dwell time, since `since`; once per stay.
  case dwelled(RegionOwner, RegionID, since: Instant)
}

extension RegionOutput {
  /// The owner and region this output is about, then its kind (a transition before the
  /// dwell it may complete), for ordering.
  var sortKey: (RegionOwner, String, Int) {
    switch self {
    case .registered(let o, let id), .unregistered(let o, let id): return (o, id.value, 0)
    case .refused(let o, let id, _): return (o, id?.value ?? "", 0)
    case .transition(let t): return (t.owner, t.id.value, 1)
    case .dwelled(let o, let id, _): return (o, id.value, 2)
    }
  }

  /// An order for outputs: by owner, region id, then kind.
  public static func inOrder(_ a: RegionOutput, _ b: RegionOutput) -> Bool {
    let (ka, kb) = (a.sortKey, b.sortKey)
    if ka.0 != kb.0 { return ka.0 < kb.0 }
    if ka.1 != kb.1 { return ka.1 < kb.1 }
    return ka.2 < kb.2
  }
}
