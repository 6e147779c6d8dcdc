/// Every position the resolver weighs, one of each kind (nil: none).
public struct PositionCandidates: Sendable, Hashable {
  /// The latest accepted GNSS fix of this run.
  public var fix: Position?
  /// The latest answer of the geolocation service (origin `wifi` or `ip`).
  public var network: Position?
  /// What the static file says.
  public var staticFile: Position?
  /// The manual location.
  public var manual: Position?
  /// The last known position from the state file (or last persisted).
  public var lastKnown: Position?

  /// Candidates; all absent unless given.
  public init(
    fix: Position? = nil, network: Position? = nil, staticFile: Position? = nil, manual: Position? = nil,
    lastKnown: Position? = nil
  ) {
    self.fix = fix
    self.network = network
    self.staticFile = staticFile
    self.manual = manual
    self.lastKnown = lastKnown
  }
}

/// The fusion of every candidate into one answer (decision 0050). By rank: a fresh GNSS fix ▸
/// the static file ▸ a fresh Wi-Fi answer ▸ the last known position (cached) ▸ the manual
/// location ▸ a fresh IP answer ▸ none; a network answer older than the latest GNSS fix is
/// not fresh (`overtaken`). One exception keeps a worse position from replacing a
/// better one: when a more accurate candidate (not IP; a cached one only if it is newer than
/// the winner) lies inside the winner's accuracy circle, that candidate answers — the winner
/// agrees with it and tells nothing it does not. Pure: the same candidates at the same instant give the
/// same answer, so a source's switch can only follow its candidates, never flap by itself.
public enum PositionResolver {
  /// How long each kind of measurement stays fresh.
  public struct Freshness: Sendable, Hashable {
    /// A GNSS fix (`[Position] FreshFor=`).
    public var fix: Duration
    /// A Wi-Fi or IP answer (the service's answer describes a place that a machine at rest
    /// stays in; `[Network] MaxAge=`).
    public var network: Duration
    /// Both.
    public init(fix: Duration, network: Duration = .seconds(600)) {
      self.fix = fix
      self.network = network
    }
  }

  /// Resolves `candidates` at `now`. `sourceProblem` explains why fixes are not coming, if known.
  public static func resolve(
    _ candidates: PositionCandidates, freshness: Freshness, now: Instant, sourceProblem: String?
  ) -> ResolvedPosition {
    let ranked = rank(candidates, freshness: freshness, now: now)
    guard var winner = ranked.first else {
      let why = sourceProblem ?? "no fresh fix"
      return ResolvedPosition(
        tier: .none, position: nil, age: nil,
        reason: "\(why), no last known position and no manual location",
        remedy: "connect a GPS receiver (see 'locctl status' sources), or run 'locctl set-location LAT LON'")
    }
    for holder in ranked.dropFirst() where holds(holder, against: winner) {
      winner = holder
      break
    }
    let age = age(of: winner.position, at: now)
    guard winner.tier != .fix || winner.position.origin != .gnss else {
      return ResolvedPosition(tier: .fix, position: winner.position, age: age)
    }
    let why = sourceProblem ?? "no fresh fix"
    let what: String
    switch winner.tier == .cached ? .cached : winner.position.origin {
    case .staticFile: what = "static location"
    case .manual: what = "manual location"
    case .wifi: what = "Wi-Fi position"
    case .cell: what = "cell position"
    case .ip: what = "IP position"
    case .gnss, .cached: what = "last known position"
    }
    return ResolvedPosition(tier: winner.tier, position: winner.position, age: age, reason: "\(why); \(what)")
  }

  /// The ladder of a machine with GNSS alone (fresh fix ▸ cached ▸ manual ▸ none).
  public static func resolve(
    fix: Position?, lastKnown: Position?, manual: Position?, freshFor: Duration, now: Instant,
    sourceProblem: String?
  ) -> ResolvedPosition {
    resolve(
      PositionCandidates(fix: fix, manual: manual, lastKnown: lastKnown), freshness: Freshness(fix: freshFor),
      now: now, sourceProblem: sourceProblem)
  }

  /// A candidate with its tier and rank (0 first).
  struct Ranked: Hashable {
    var position: Position
    var tier: PositionTier
    var rank: Int
  }

  /// The candidates that count at `now`, best rank first.
  static func rank(_ c: PositionCandidates, freshness: Freshness, now: Instant) -> [Ranked] {
    func fresh(_ p: Position?, _ limit: Duration) -> Position? {
      guard let p, let a = age(of: p, at: now), a < limit else { return nil }
      return p
    }
    var out: [Ranked] = []
    func add(_ p: Position?, _ tier: PositionTier, _ rank: Int) {
      if let p { out.append(Ranked(position: p, tier: tier, rank: rank)) }
    }
    let network = fresh(c.network, freshness.network).flatMap { overtaken($0, in: c) ? nil : $0 }
    add(fresh(c.fix, freshness.fix), .fix, 0)
    add(c.staticFile, .manual, 1)
    // Wi-Fi and cells measure where the machine is (a cell more coarsely): ranked alike.
    add(network?.origin == .wifi || network?.origin == .cell ? network : nil, .fix, 2)
    // The newest measurement that is not fresh any more (IP answers never: they must not
    // outrank the manual location as cached ones).
    let measured = [c.fix, c.network?.origin == .ip ? nil : c.network, c.lastKnown].compactMap { $0 }
    add(measured.max(by: { $0.receivedAt < $1.receivedAt }), .cached, 3)
    add(c.manual, .manual, 4)
    add(network?.origin == .ip ? network : nil, .fix, 5)
    // A fresh candidate is never also its own cached one.
    if let first = out.first(where: { $0.tier == .cached }),
      out.contains(where: { $0.tier == .fix && $0.position == first.position })
    {
      out.removeAll(where: { $0.tier == .cached })
    }
    return out.sorted(by: { $0.rank < $1.rank })
  }

  /// Whether a network answer was received before the latest GNSS fix (this run's, or the
  /// last known one when that is a fix): the fix is the later measurement. Where it lies
  /// inside the answer's circle it agrees and knows more; where it lies outside, the machine
  /// has moved since the answer or the answer was wrong. Either way the answer is no fresher
  /// word than the fix, so it does not rank as fresh, and the fix answers as the cached
  /// position once it is no longer fresh itself.
  static func overtaken(_ answer: Position, in c: PositionCandidates) -> Bool {
    let fixes = [c.fix, c.lastKnown?.origin == .gnss ? c.lastKnown : nil].compactMap { $0 }
    return fixes.contains { $0.receivedAt > answer.receivedAt }
  }

  /// Whether `holder`, ranked below `winner`, keeps its place: it is more accurate and lies
  /// inside the winner's circle, so the winner agrees with it and only knows less (geoclue's
  /// locator keeps its current location against such a one). IP answers never hold a place;
  /// a cached position only against an older winner (it is then the later word on the same
  /// place); a winner of unknown accuracy (a manual location) is never second-guessed.
  static func holds(_ holder: Ranked, against winner: Ranked) -> Bool {
    guard holder.position.origin != .ip, let radius = holder.position.accuracy,
      let reach = winner.position.accuracy, reach > radius
    else { return false }
    if holder.tier == .cached && holder.position.receivedAt <= winner.position.receivedAt { return false }
    return winner.position.coordinate.distance(to: holder.position.coordinate) <= reach
  }

  /// The time since `p` was received, nil when that lies ahead of `now`: the wall clock was
  /// set back since (or the state file was written by a clock that ran ahead), so how old
  /// the position is cannot be told, and it is never fresh. Never a negative age.
  static func age(of p: Position, at now: Instant) -> Duration? {
    p.receivedAt <= now ? now.duration(since: p.receivedAt) : nil
  }
}
