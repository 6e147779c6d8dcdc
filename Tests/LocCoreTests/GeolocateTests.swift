import LocCore
import Testing

/// The geolocate API's request and answer (ichnaea's POST /v1/geolocate, which beaconDB
/// speaks): what may be sent of a scan, the body's fields, and every answer judged. The
/// expectations come from the API's documented shape and the rules of issue 23.
@Suite struct GeolocateTests {
  static func ap(_ first: UInt8, _ last: UInt8, ssid: String, signal: Int, age: Duration? = nil)
    -> WifiAccessPoint
  {
    WifiAccessPoint(
      bssid: [first, 0x11, 0x22, 0x33, 0x44, last], ssid: Array(ssid.utf8), signal: signal, age: age)
  }

  @Test func nomapHiddenAndLocallyAdministeredNetworksAreNeverSent() {
    let scan = [
      Self.ap(0x00, 1, ssid: "home", signal: -50),
      Self.ap(0x00, 2, ssid: "cafe_nomap", signal: -40),
      Self.ap(0x00, 3, ssid: "", signal: -45),
      WifiAccessPoint(bssid: [0, 0x11, 0x22, 0x33, 0x44, 4], ssid: [0, 0, 0], signal: -46),
      // 0x02 set in the first byte: a randomised or hotspot BSSID.
      Self.ap(0x02, 5, ssid: "phone", signal: -30),
      Self.ap(0xdc, 6, ssid: "office", signal: -70),
    ]
    let q = GeolocateQuery.wifi(scan)
    #expect(q.accessPoints.map(\.macAddress) == ["00:11:22:33:44:01", "dc:11:22:33:44:06"])
    #expect(!q.considerIp && q.origin == .wifi)
    #expect(scan.map(\.exclusion) == [nil, .optedOut, .hidden, .hidden, .locallyAdministered, nil])
  }

  /// Issue 40, finding 6: opt-outs in other spellings were sent. The conventions: `_nomap`
  /// at the end of the SSID (Google's, honoured by Mozilla's service and beaconDB) and
  /// `_optout` (Microsoft's Wi-Fi Sense). locd's rule (NETWORK.md): either word anywhere in
  /// the SSID, in any case of ASCII letters; so a case change, padding after it (a trailing
  /// space, tab or NUL, as some routers store it) or a suffix after it does not hide it.
  @Test(arguments: [
    "cafe_NOMAP", "cafe_NoMap", "cafe_nomap ", "cafe_nomap\t", "cafe_nomap\0", "cafe_nomap\0\0\0",
    "home_optout", "home_OPTOUT", "home_optout ", "home_optout_nomap", "home_nomap_optout", "home_nomap_5G",
    "_nomap", "_optout",
  ])
  func anOptOutInAnySpellingIsNeverSent(_ ssid: String) {
    let ap = Self.ap(0x00, 1, ssid: ssid, signal: -40)
    #expect(GeolocateQuery.wifi([ap, Self.ap(0x00, 2, ssid: "home", signal: -60)]).accessPoints.count == 1)
    #expect(ap.exclusion != nil)
  }

  /// Names that only look like the words are sent: no underscore, or another word.
  @Test(arguments: ["nomap", "cafe-nomap", "cafe nomap", "optout", "cafe_noma", "_opt_out", "cafe_n0map"])
  func aNameWithoutTheOptOutWordIsSent(_ ssid: String) {
    #expect(Self.ap(0x00, 1, ssid: ssid, signal: -40).exclusion == nil)
  }

  /// Issue 40, finding 6: a group (multicast) BSSID was sent. No access point has one (bit 0
  /// of the first byte is IEEE 802's individual/group bit): 01:00:5e:... is IPv4 multicast,
  /// 01:80:c2:00:00:0e LLDP's, 33:33:... IPv6's and ff:ff:ff:ff:ff:ff broadcast (these two
  /// have the local bit set as well, and were left out for that already).
  @Test(
    arguments: [
      [0x01, 0x00, 0x5e, 0x00, 0x00, 0x01], [0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e],
      [0x33, 0x33, 0x00, 0x00, 0x00, 0x01], [0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
    ] as [[UInt8]])
  func aGroupBSSIDIsNeverSent(_ bssid: [UInt8]) {
    let ap = WifiAccessPoint(bssid: bssid, ssid: Array("home".utf8), signal: -40)
    #expect(GeolocateQuery.wifi([ap]).accessPoints.isEmpty)
    #expect(ap.exclusion != nil)
  }

  /// Issue 40, finding 6: only the first 256 access points were read, so among 10,000 the
  /// strongest could be missed. The query is made of all that were read: the strongest 20 of
  /// 10,000, wherever they are in the scan. Here the signals rise by one dBm every 500th
  /// access point and the strongest sit at the end: -100 + 9999 / 500 = -81 for the last 500,
  /// so the 20 sent are the last 20 indices' at -81 (ties broken by the highest address).
  @Test func theStrongestOfTenThousandAreChosen() {
    let scan = (0..<10_000).map { i in
      WifiAccessPoint(
        bssid: [0x00, 0x11, 0x22, 0x33, UInt8(i >> 8), UInt8(i & 0xff)], ssid: Array("n\(i)".utf8),
        signal: -100 + i / 500)
    }
    let q = GeolocateQuery.wifi(scan)
    #expect(q.accessPoints.count == 20)
    #expect(q.accessPoints.allSatisfy { $0.signal == -81 })
    #expect(q.accessPoints.first?.macAddress == "00:11:22:33:27:0f")
  }

  @Test func atMostTheTwentyStrongestAreSent() {
    let scan = (0..<30).map { Self.ap(0x00, UInt8($0), ssid: "n\($0)", signal: -90 + $0) }
    let q = GeolocateQuery.wifi(scan)
    #expect(q.accessPoints.count == 20)
    // -61 (i = 29) down to -80 (i = 10).
    #expect(q.accessPoints.first?.signal == -61 && q.accessPoints.last?.signal == -80)
  }

  @Test func theBodyHasTheAPIsFieldsAndNothingElse() throws {
    let q = GeolocateQuery.wifi([
      Self.ap(0x00, 1, ssid: "home", signal: -50, age: .milliseconds(1500)),
      Self.ap(0x00, 2, ssid: "next door", signal: -60),
    ])
    let json = try JSON.parse(q.body)
    #expect(json["considerIp"] == .bool(false))
    let aps = try #require(json["wifiAccessPoints"]?.array)
    #expect(aps.count == 2)
    #expect(aps[0]["macAddress"] == .string("00:11:22:33:44:01"))
    #expect(aps[0]["signalStrength"] == .number(-50) && aps[0]["age"] == .number(1500))
    #expect(aps[1]["age"] == nil)
    // No SSID, no frequency: only what the API needs.
    #expect(aps[0].object?.keys.sorted() == ["age", "macAddress", "signalStrength"])
    #expect(try JSON.parse(GeolocateQuery.ipOnly.body).object?.keys == ["considerIp"])
  }

  @Test func theCacheKeyIsTheSetOfNetworksWhateverTheirSignal() {
    let a = GeolocateQuery.wifi([
      Self.ap(0, 1, ssid: "a", signal: -50), Self.ap(0, 2, ssid: "b", signal: -60),
    ])
    let b = GeolocateQuery.wifi([
      Self.ap(0, 2, ssid: "b", signal: -40), Self.ap(0, 1, ssid: "a", signal: -70),
    ])
    #expect(a.cacheKey == b.cacheKey)
    #expect(GeolocateQuery.ipOnly.cacheKey == "ip")
  }

  @Test func aGoodAnswerIsTheLocationAndItsAccuracy() throws {
    let body = Array(#"{"location": {"lat": 59.9139, "lng": 10.7522}, "accuracy": 25.5}"#.utf8)
    let located = try GeolocateAnswer.judge(status: 200, body: body).get()
    #expect(located.coordinate == Coordinate(lat: 59.9139, lon: 10.7522))
    // Taken unchanged as the 68 % radius (GeolocateAnswer.Located's note).
    #expect(located.accuracy == Meters(25.5))
  }

  @Test(arguments: [
    (404, #"{"error": {"code": 404, "message": "Not found"}}"#, GeolocateFailure.notFound),
    (500, "oops", .httpStatus),
    (200, "garbage", .malformed),
    (200, #"{"location": {"lat": NaN, "lng": 10}, "accuracy": 10}"#, .malformed),
    (200, #"{"location": {"lat": "59", "lng": 10}, "accuracy": 10}"#, .malformed),
    (200, #"{"accuracy": 10}"#, .malformed),
    (200, #"{"location": {"lat": 91, "lng": 10}, "accuracy": 10}"#, .outOfRange),
    (200, #"{"location": {"lat": 59, "lng": -180.5}, "accuracy": 10}"#, .outOfRange),
    // A number too large for a double is no number to the JSON reader.
    (200, #"{"location": {"lat": 1e999, "lng": 10}, "accuracy": 10}"#, .malformed),
    (200, #"{"location": {"lat": 59, "lng": 10}, "accuracy": 0}"#, .badAccuracy),
    (200, #"{"location": {"lat": 59, "lng": 10}, "accuracy": -5}"#, .badAccuracy),
    (200, #"{"location": {"lat": 59, "lng": 10}}"#, .badAccuracy),
    (200, #"{"location": {"lat": 59, "lng": 10}, "accuracy": 1e12}"#, .badAccuracy),
  ])
  func aBadAnswerGivesNoPositionAndSaysWhatKind(status: Int, body: String, kind: GeolocateFailure) {
    let result = GeolocateAnswer.judge(status: status, body: Array(body.utf8))
    guard case .failure(let problem) = result else {
      Issue.record("accepted: \(result)")
      return
    }
    #expect(problem.kind == kind, "\(problem.detail)")
  }

  @Test func aDefaultRouteThroughATunnelIsSeen() {
    let header = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
    let plain =
      header + "wlan0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0\n"
      + "wlan0\t0001A8C0\t00000000\t0001\t0\t0\t600\t00FFFFFF\t0\t0\t0\n"
    #expect(NetworkRoute.defaultInterfaces(procNetRoute: plain) == ["wlan0"])
    #expect(NetworkRoute.tunnel(among: ["wlan0"]) == nil)
    let wireguard = header + "wg0\t00000000\t00000000\t0001\t0\t0\t0\t00000000\t0\t0\t0\n"
    #expect(NetworkRoute.tunnel(among: NetworkRoute.defaultInterfaces(procNetRoute: wireguard)) == "wg0")
    // OpenVPN's redirect-gateway def1: 0.0.0.0/1 and 128.0.0.0/1 through tun0.
    let def1 =
      plain + "tun0\t00000000\t0100080A\t0003\t0\t0\t0\t00000080\t0\t0\t0\n"
      + "tun0\t00000080\t0100080A\t0003\t0\t0\t0\t00000080\t0\t0\t0\n"
    #expect(NetworkRoute.tunnel(among: NetworkRoute.defaultInterfaces(procNetRoute: def1)) == "tun0")
    // A route that is down (no RTF_UP) carries nothing.
    let down = header + "ppp0\t00000000\t00000000\t0000\t0\t0\t0\t00000000\t0\t0\t0\n"
    #expect(NetworkRoute.defaultInterfaces(procNetRoute: down).isEmpty)
  }

  /// The files of a network namespace set up as wg-quick does (captured from the kernel:
  /// `ip route add default dev wg0 table 51820`, the same for IPv6, `ip rule add not fwmark
  /// 51820 table 51820`), with the main tables' defaults through eth9 left in place.
  enum WgQuick {
    static let route = """
      Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
      eth9\t00000000\t0101A8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0
      wg0\t0000080A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
      eth9\t0001A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
      """
    static let ipv6Default =
      "00000000000000000000000000000000 00 00000000000000000000000000000000 00 "
      + "00000000000000000000000000000000 00000400 00000001 00000000 00000001      wg0\n"
    static let ipv6Main = """
      fd000001000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth9
      00000000000000000000000000000000 00 00000000000000000000000000000000 00 fd000001000000000000000000000001 00000400 00000001 00000000 00000003     eth9
      00000000000000000000000000000001 80 00000000000000000000000000000000 00 00000000000000000000000000000000 00000000 00000002 00000000 80200001       lo
      00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo

      """
    static let trie = """
      Id 51820:
        |-- 0.0.0.0
           /0 link UNICAST
      Main:
        +-- 0.0.0.0/0 2 0 2
           +-- 0.0.0.0/4 2 0 2
              |-- 0.0.0.0
                 /0 universe UNICAST
              |-- 10.8.0.0
                 /24 link UNICAST
           |-- 192.168.1.0
              /24 link UNICAST
      Local:
        +-- 0.0.0.0/0 3 0 5
           +-- 10.8.0.0/24 2 0 2
              |-- 10.8.0.2
                 /32 host LOCAL
      """
    static let dev = """
      Inter-|   Receive                                                |  Transmit
       face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
          lo:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0
         wg0:     396       4    0    0    0     0          0         0      200       2    0    0    0     0       0          0
        eth9:     200       2    0    0    0     0          0         0      396       4    0    0    0     0       0          0
      """
  }

  /// IPv4's main table shows only eth9's default; IPv6's file shows every table, so wg0's
  /// default in table 51820 is seen there; IPv4's other table is seen in fib_trie (no
  /// interface named), and counts as the VPN's because a wg interface exists.
  @Test func wgQuicksPolicyRoutingIsSeenThroughIPv6AndTheOtherTable() {
    #expect(NetworkRoute.defaultInterfaces(procNetRoute: WgQuick.route) == ["eth9"])
    #expect(
      NetworkRoute.defaultInterfaces(procNetIPv6Route: WgQuick.ipv6Default + WgQuick.ipv6Main) == [
        "wg0", "eth9",
      ])
    // lo's unreachable default (RTF_REJECT, no RTF_UP) carries nothing.
    #expect(NetworkRoute.defaultInterfaces(procNetIPv6Route: WgQuick.ipv6Main) == ["eth9"])
    #expect(NetworkRoute.otherTablesWithDefault(fibTrie: WgQuick.trie) == ["Id 51820"])
    #expect(NetworkRoute.interfaces(procNetDev: WgQuick.dev) == ["lo", "wg0", "eth9"])
    let all = NetworkRoute.tunnel(
      procNetRoute: WgQuick.route, procNetIPv6Route: WgQuick.ipv6Default + WgQuick.ipv6Main,
      fibTrie: WgQuick.trie, procNetDev: WgQuick.dev)
    #expect(all == "wg0")
    // IPv4 alone (no IPv6 on the tunnel): the other table's default and wg0's presence.
    let v4 = NetworkRoute.tunnel(
      procNetRoute: WgQuick.route, procNetIPv6Route: WgQuick.ipv6Main, fibTrie: WgQuick.trie,
      procNetDev: WgQuick.dev)
    #expect(v4 == "wg0")
    // Without the other table (a plain machine with a wg interface that carries no default).
    let trieMainOnly = String(WgQuick.trie.split(separator: "Main:", maxSplits: 1)[1])
    let plain = NetworkRoute.tunnel(
      procNetRoute: WgQuick.route, procNetIPv6Route: WgQuick.ipv6Main, fibTrie: "Main:" + trieMainOnly,
      procNetDev: WgQuick.dev)
    #expect(plain == nil)
    // Unreadable files are no evidence either way.
    #expect(
      NetworkRoute.tunnel(procNetRoute: WgQuick.route, procNetIPv6Route: nil, fibTrie: nil, procNetDev: nil)
        == nil)
  }

  /// OpenVPN's `redirect-gateway ipv6` routes 2000::/4 and 3000::/4 through the tunnel
  /// instead of replacing ::/0; a /64 of the tunnel's own is no default.
  @Test func openVPNsIPv6HalvesCountAsTheDefault() {
    func line(_ dest: String, _ length: String, _ device: String) -> String {
      dest + " " + length + " 00000000000000000000000000000000 00 00000000000000000000000000000000"
        + " 00000400 00000001 00000000 00000001 " + device + "\n"
    }
    let halves =
      line("20000000000000000000000000000000", "04", "tun0")
      + line("30000000000000000000000000000000", "04", "tun0")
    #expect(NetworkRoute.defaultInterfaces(procNetIPv6Route: halves) == ["tun0", "tun0"])
    let own =
      line("fd000008000000000000000000000000", "40", "tun0")
      + line("fc000000000000000000000000000000", "07", "tun0")
    #expect(NetworkRoute.defaultInterfaces(procNetIPv6Route: own).isEmpty)
  }
}
