/// Network positioning in `status` (`network`): on or off, the service, when it last asked
/// and how often. Counters only: never a network, never a position.
public struct NetworkReport: Sendable, Hashable {
  /// `[Network] Enable=`.
  public var enabled: Bool
  /// `[Network] IPLookup=`.
  public var ipLookup: Bool
  /// The service's URL.
  public var service: String
  /// A lookup is under way.
  public var asking: Bool
  /// When the last lookup was sent.
  public var lastAsked: Instant?
  /// When the service last answered (a position or a 404).
  public var lastAnswered: Instant?
  /// No lookup before this (the backoff after failures).
  public var retryAt: Instant?
  /// Why the last lookup gave no position, in words.
  public var lastProblem: String?
  /// Whether the Wi-Fi scene is followed now (a client follows the position; decision 0066).
  public var following = false
  /// Why the last Wi-Fi scan found nothing to read (no NetworkManager nor wpa_supplicant on
  /// the bus, no Wi-Fi device), in words; nil when it read the devices.
  public var scanProblem: String?
  /// How often.
  public var counts: Counts

  /// The counters.
  public struct Counts: Sendable, Hashable {
    /// Wi-Fi scans asked for.
    public var scans = 0
    /// Lookups sent.
    public var requests = 0
    /// Positions received.
    public var answers = 0
    /// Lookups answered from memory with a position, nothing sent (a remembered 'not
    /// found' is not counted: it answers nothing).
    public var cacheHits = 0
    /// Lookups not sent (an IP lookup while a VPN carries the default route).
    public var skipped = 0
    /// Access points a scan published and the shell did not read: beyond
    /// `WifiAccessPoint.scanLimit`, or not answered within the read's time.
    public var unreadAccessPoints = 0
    /// Scenes the Wi-Fi devices published while a client followed the position (access
    /// points came or went, another program's scan ended), read without a scan of locd's.
    public var published = 0
    /// Scenes seen (published or scanned) that moved away from the one the position stood
    /// for (`WifiScene.moveThreshold`): each wants a lookup, the cache may answer it.
    public var moves = 0
    /// Lookups that gave no position, by why.
    public var failed: [GeolocateFailure: Int] = [:]

    /// None yet.
    public init() {}

    /// Every counter in a stable order: requests, answers, cacheHits, skipped, scans,
    /// unreadAccessPoints, published, moves, then each failure kind.
    public var list: [Counter] {
      [
        Counter("requests", requests), Counter("answers", answers), Counter("cacheHits", cacheHits),
        Counter("skipped", skipped), Counter("scans", scans),
        Counter("unreadAccessPoints", unreadAccessPoints), Counter("published", published),
        Counter("moves", moves),
      ] + GeolocateFailure.allCases.map { Counter($0.rawValue, failed[$0] ?? 0) }
    }
  }
}
