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
}
