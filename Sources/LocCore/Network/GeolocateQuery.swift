/// What one lookup sends to the geolocation service: the ichnaea geolocate API's request
/// (POST /v1/geolocate): `considerIp`, and `wifiAccessPoints` with each one's `macAddress`,
/// `signalStrength` (dBm) and `age` (ms since it was seen), and `cellTowers` with the
/// modems' serving cells (`CellTower`: `radioType` when known, `mobileCountryCode`,
/// `mobileNetworkCode`, `locationAreaCode`, `cellId`). Nothing else: no SSID, no frequency,
/// no identity of the machine, the SIM or the modem.
public struct GeolocateQuery: Sendable, Hashable {
  /// The access points to send, strongest first (at most `maxAccessPoints`).
  public var accessPoints: [WifiAccessPoint]
  /// The cells the modems are registered with (at most `maxCellTowers`).
  public var cellTowers: [CellTower]
  /// Whether the service may fall back to the request's IP address.
  public var considerIp: Bool

  /// At most this many access points are sent: the strongest are the nearest, and more
  /// tell the service little while sending more of the neighbourhood.
  public static let maxAccessPoints = 20
  /// At most this many cells (one per modem: a machine has one or two).
  public static let maxCellTowers = 4

  /// A query as given.
  public init(accessPoints: [WifiAccessPoint], cellTowers: [CellTower] = [], considerIp: Bool) {
    self.accessPoints = accessPoints
    self.cellTowers = cellTowers
    self.considerIp = considerIp
  }

  /// The networks of `self` with `cells` too (each once, in the order given, at most
  /// `maxCellTowers`).
  public func with(cells: [CellTower]) -> GeolocateQuery {
    var seen = Set<String>()
    let unique = cells.filter { seen.insert($0.key).inserted }
    return GeolocateQuery(
      accessPoints: accessPoints, cellTowers: Array(unique.prefix(Self.maxCellTowers)), considerIp: considerIp
    )
  }

  /// Whether it names any network (Wi-Fi or cell).
  public var hasNetworks: Bool { !accessPoints.isEmpty || !cellTowers.isEmpty }

  /// The query for a scan: only the access points that may be sent (`exclusion`), the
  /// strongest `maxAccessPoints` of them; never `considerIp` (IP lookups are their own
  /// opt-in, `ipOnly`).
  public static func wifi(_ scan: [WifiAccessPoint]) -> GeolocateQuery {
    var seen = Set<[UInt8]>()
    let usable = scan.filter { $0.exclusion == nil && seen.insert($0.bssid).inserted }
      .sorted { ($0.signal, $0.macAddress) > ($1.signal, $1.macAddress) }
    return GeolocateQuery(accessPoints: Array(usable.prefix(maxAccessPoints)), considerIp: false)
  }

  /// The IP-only query: no access points, `considerIp` true.
  public static let ipOnly = GeolocateQuery(accessPoints: [], considerIp: true)

  /// What the answer is cached under: the set of networks (the BSSIDs and the cells, each
  /// sorted; signal and age do not change where they are), or `ip` for an IP-only lookup. A
  /// new serving cell is a new set.
  public var cacheKey: String {
    guard hasNetworks else { return "ip" }
    let wifi = accessPoints.map(\.macAddress).sorted().joined(separator: ",")
    return cellTowers.isEmpty
      ? wifi : wifi + ";cells:" + cellTowers.map(\.key).sorted().joined(separator: ",")
  }

  /// What the answer's position is: Wi-Fi when access points were sent, else the cell when
  /// cells were, else IP.
  public var origin: PositionProvenance {
    !accessPoints.isEmpty ? .wifi : !cellTowers.isEmpty ? .cell : .ip
  }

  /// The request body, JSON.
  public var body: String {
    var o: JSONObject = ["considerIp": .bool(considerIp)]
    if !accessPoints.isEmpty {
      o["wifiAccessPoints"] = .array(
        accessPoints.map { ap in
          var a: JSONObject = ["macAddress": .string(ap.macAddress), "signalStrength": .int(ap.signal)]
          if let age = ap.age { a["age"] = .int(Int((age.seconds * 1000).rounded())) }
          return .object(a)
        })
    }
    if !cellTowers.isEmpty { o["cellTowers"] = .array(cellTowers.map(\.json)) }
    return JSON.object(o).serialized
  }
}
