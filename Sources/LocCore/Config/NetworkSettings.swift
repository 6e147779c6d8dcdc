/// `[Network]`: positions from a geolocation service speaking the ichnaea geolocate API
/// (docs/NETWORK.md). Off unless `Enable=yes`: nothing leaves the machine before.
public struct NetworkSettings: Sendable, Hashable {
  /// `Enable=`: the one switch; with it off no lookup is ever sent.
  public var enabled = false
  /// `IPLookup=`: IP-only lookups (`considerIp`, no networks), city level: the last network
  /// tier under the one switch (`Enable=yes`), made when no Wi-Fi or cell may be sent; never
  /// while a VPN-like interface carries the default route. On by default (decision 0068:
  /// it was a second opt-in, so a laptop without Wi-Fi to look up had no position where
  /// geoclue falls back by itself); `IPLookup=no` leaves it out.
  public var ipLookup = true
  /// `URL=`: the service's geolocate endpoint (beaconDB's public one by default).
  public var url = "https://api.beacondb.net/v1/geolocate"
  /// `MinInterval=`: at least this long between two lookups.
  public var minInterval: Duration = .seconds(60)
  /// `Timeout=`: a lookup gives up after this long (connection and answer together).
  public var timeout: Duration = .seconds(10)
  /// `MaxAge=`: an answer stands for the place this long.
  public var freshFor: Duration = .seconds(600)
  /// `ScanWait=`: the longest wait for a Wi-Fi scan whose end is not signalled (an older
  /// NetworkManager without LastScan, a refused scan); a signalled end is not waited past.
  public var scanWait: Duration = .seconds(3)
  /// `RescanAfter=`: while a client follows the position, locd asks for a scan of its own
  /// only when the Wi-Fi devices published nothing for this long (decision 0066).
  public var rescanAfter: Duration = .seconds(120)
  /// `CacheFor=`: an answer (or a 404) is reused for the same networks this long.
  public var cacheFor: Duration = .seconds(3600)
  /// The longest wait after failures (the backoff doubles from `MinInterval=` up to it).
  public static let maxBackoff: Duration = .seconds(3600)

  /// The defaults.
  public init() {}
}
