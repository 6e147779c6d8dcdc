/// Who reads the satellites, as far as the engine knows (decision 0069): the sessions
/// subscribed to `sky` events, and whoever sent a `sky` request in the last `askedFor`. While
/// any does, the engine wants skies assembled (`Effect.skies(wanted:)`); the shell adds its
/// faces' readers (gpsd watchers, NMEA out) and tells the sources. A `sky` request that comes
/// while nobody read skies waits for the first sky of each connected receiver, at most
/// `gatherBound`, so `locctl sky` shows satellites and not "nothing yet".
struct SkyDemandMachine: EngineMachine {
  /// How long a `sky` request keeps skies assembled: `locctl sky` run again a minute later
  /// answers at once, and an idle daemon goes back to fixes only.
  static let askedFor = Duration.seconds(600)
  /// The longest a `sky` request waits for the receivers' first skies: a receiver sends its
  /// GSV every cycle (some every few: `SkyAssembler.staleEpochs` is 5), and the first set
  /// after turning on may be cut, so a 1 Hz receiver's comes within 2 s.
  static let gatherBound = Duration.seconds(5)
  /// A sky this recent counts as current: a request finds it without waiting.
  static let fresh = Duration.seconds(5)

  /// A `sky` request waiting for the skies of `awaiting` until `until`.
  struct Held: Sendable, Hashable {
    var ref: RequestRef
    var awaiting: Set<SourceID>
    var until: Instant
  }

  /// Until when the last `sky` request keeps skies assembled (nil: none yet).
  private var askedUntil: Instant?
  /// The requests waiting for skies, oldest first.
  private var held: [Held] = []
  /// What the engine last told the shell (`Effect.skies(wanted:)`).
  private var wanted = false
  /// Skies the sources handed in (`skyDecoded`), since start.
  private var built = 0

  /// Whether the engine last said it wants skies.
  var isWanted: Bool { wanted }

  /// Whether the engine's readers want skies at `now`.
  func wants(subscribers: Int, at now: Instant) -> Bool {
    subscribers > 0 || (askedUntil.map { now < $0 } ?? false)
  }

  /// A `sky` request came at `now`: skies are wanted for `askedFor` from now.
  mutating func asked(at now: Instant) {
    askedUntil = now.adding(SkyDemandMachine.askedFor)
  }

  /// The request `ref` waits for a sky of each of `awaiting` (none: answered now).
  mutating func hold(_ ref: RequestRef, awaiting: Set<SourceID>, at now: Instant) -> Bool {
    guard !awaiting.isEmpty else { return false }
    held.append(Held(ref: ref, awaiting: awaiting, until: now.adding(SkyDemandMachine.gatherBound)))
    return true
  }

  /// A sky came from `source`: the requests that waited for it alone are answered.
  mutating func skyCame(from source: SourceID) -> [RequestRef] {
    built += 1
    guard !held.isEmpty else { return [] }
    var done: [RequestRef] = []
    held = held.compactMap { h in
      var h = h
      h.awaiting.remove(source)
      guard h.awaiting.isEmpty else { return h }
      done.append(h.ref)
      return nil
    }
    return done
  }

  /// The requests whose wait ended at `now`: answered with what there is.
  mutating func due(at now: Instant) -> [RequestRef] {
    let done = held.filter { $0.until <= now }.map(\.ref)
    guard !done.isEmpty else { return [] }
    held.removeAll { $0.until <= now }
    return done
  }

  /// A session went away: its waiting requests go too.
  mutating func drop(_ session: SessionID) {
    held.removeAll { $0.ref.session == session }
  }

  /// Notes what the engine wants now; returns it when that changed.
  mutating func settle(subscribers: Int, at now: Instant) -> Bool? {
    let w = wants(subscribers: subscribers, at: now)
    guard w != wanted else { return nil }
    wanted = w
    return w
  }

  /// When the engine must look again: a wait's end, or the end of the request's window.
  func deadline(at now: Instant) -> Instant? {
    let window = askedUntil.flatMap { now < $0 ? $0 : nil }
    let wait = held.map(\.until).min()
    switch (window, wait) {
    case (let a?, let b?): return min(a, b)
    case (let a, let b): return a ?? b
    }
  }

  /// The engine's part of `status`'s `skies` (the shell adds its faces' readers).
  func report(subscribers: Int, at now: Instant) -> SkiesReport {
    var readers: [SkyReader] = []
    if subscribers > 0 { readers.append(.subscribers) }
    if let askedUntil, now < askedUntil { readers.append(.request) }
    return SkiesReport(
      assembled: !readers.isEmpty, readers: readers, built: built,
      askedUntil: askedUntil.flatMap { now < $0 ? $0 : nil }, waiting: held.count)
  }
}
