/// One source's latest sky, as the engine keeps it and the `sky` method and event send it.
public struct SourceSky: Sendable, Hashable {
  /// The source's URI, as in `status`.
  public var source: String
  /// The satellites.
  public var sky: Sky
  /// When it came (the engine's clock).
  public var time: Instant

  /// A sky from its parts.
  public init(source: String, sky: Sky, time: Instant) {
    self.source = source
    self.sky = sky
    self.time = time
  }
}

/// The latest sky of each source, in memory only (never written to disk: it is not a
/// position), and when each was last sent to subscribers. A `sky` event goes out when a
/// source's sky differs from the one last sent for it, at most once per `eventInterval`
/// per source: a change that comes sooner waits for the source's next sky (receivers report
/// theirs every cycle), so a subscriber sees at most one event a second for each source and
/// none while the sky stands still (docs/decisions/0046-sky-view.md).
struct SkyBoard: Sendable, Hashable {
  /// The least time between two `sky` events of one source.
  static let eventInterval = Duration.seconds(1)

  /// Each source's latest sky.
  private var latest: [SourceID: SourceSky] = [:]
  /// Each source's sky last sent, and when.
  private var sent: [SourceID: SourceSky] = [:]

  /// Keeps `sky` as `source`'s latest; returns it when it is to be sent now.
  mutating func note(_ sky: Sky, from source: SourceID, uri: String, at now: Instant) -> SourceSky? {
    let entry = SourceSky(source: uri, sky: sky, time: now)
    latest[source] = entry
    if let last = sent[source] {
      guard last.sky != sky, now.duration(since: last.time) >= SkyBoard.eventInterval else { return nil }
    }
    sent[source] = entry
    return entry
  }

  /// Every source's latest sky, by source.
  var skies: [SourceSky] { latest.sorted { $0.key < $1.key }.map(\.value) }

  /// When `source`'s latest sky came (nil: none yet).
  func time(of source: SourceID) -> Instant? { latest[source]?.time }

  /// The sky that came last, of whichever source.
  var newest: SourceSky? { latest.values.max { $0.time < $1.time } }
}
