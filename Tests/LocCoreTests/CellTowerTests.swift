import LocCore
import Testing

/// ModemManager's 3GPP location string (the MM_MODEM_LOCATION_SOURCE_3GPP_LAC_CI value as
/// modemmanager-dev's org.freedesktop.ModemManager1.Modem.Location.xml documents it:
/// "MCC,MNC,LAC,CI,TAC", MCC and MNC decimal, the rest upper-case hex), the radio of
/// AccessTechnologies, and the cells in a geolocate request. The golden strings are the XML's
/// own examples and hostile variants of them.
@Suite struct CellTowerTests {
  static func cell(_ text: String, _ radio: CellRadio? = nil) -> CellTower? {
    try? ModemCellLocation.parse(text, radio: radio).get()
  }

  static func problem(_ text: String, _ radio: CellRadio? = nil) -> ModemCellLocation.Problem? {
    if case .failure(let p) = ModemCellLocation.parse(text, radio: radio) { return p }
    return nil
  }

  @Test func theXMLsExamplesAreRead() throws {
    let a = try #require(Self.cell("310,260,8BE3,2BAF", .gsm))
    #expect(
      a
        == CellTower(
          radio: .gsm, mobileCountryCode: 310, mobileNetworkCode: 260, areaCode: 0x8BE3, cellId: 0x2BAF))
    let b = try #require(Self.cell("250,40,CE00,1CEAD8F0", .lte))
    #expect(b.mobileCountryCode == 250 && b.mobileNetworkCode == 40 && b.areaCode == 0xCE00)
    #expect(b.cellId == 0x1CEAD8F0)
    // Four bytes at most, as the XML says.
    #expect(Self.cell("250,40,CE00,FFFFFFFF")?.cellId == 0xFFFF_FFFF)
  }

  @Test func lteUsesTheTrackingAreaCodeAndOthersTheLocationAreaCode() throws {
    // An LTE modem with no CS registration: LAC 0 or FFFE, TAC set.
    let lte = try #require(Self.cell("242,01,FFFE,1A2B3C4,A1", .lte))
    #expect(lte.areaCode == 0xA1 && lte.cellId == 0x1A2B3C4 && lte.mobileNetworkCode == 1)
    let both = try #require(Self.cell("262,02,84CD,D30156,6FFE", .lte))
    #expect(both.areaCode == 0x6FFE)
    let umts = try #require(Self.cell("262,02,84CD,D30156,6FFE", .wcdma))
    #expect(umts.areaCode == 0x84CD)
    // The radio unknown: the LAC, or the TAC when there is no LAC.
    #expect(Self.cell("262,02,0,D30156,6FFE")?.areaCode == 0x6FFE)
    #expect(Self.cell("262,02,84CD,D30156")?.areaCode == 0x84CD)
  }

  @Test(arguments: [
    ("", ModemCellLocation.Problem.fieldCount(1)),
    ("310,260,8BE3", .fieldCount(3)),
    ("310,260,8BE3,2BAF,6FFE,1", .fieldCount(6)),
    ("310,260,8BE3,2BAF,,", .fieldCount(6)),
    ("31,260,8BE3,2BAF", .badField("MCC")),
    ("3100,260,8BE3,2BAF", .badField("MCC")),
    ("31A,260,8BE3,2BAF", .badField("MCC")),
    ("001,01,8BE3,2BAF", .countryOutOfRange(1)),
    ("999,01,8BE3,2BAF", .countryOutOfRange(999)),
    ("310,2,8BE3,2BAF", .badField("MNC")),
    ("310,2600,8BE3,2BAF", .badField("MNC")),
    ("310,-26,8BE3,2BAF", .badField("MNC")),
    ("310,260,8be3,2BAF", .badField("LAC")),
    ("310,260,8BG3,2BAF", .badField("LAC")),
    ("310,260,18BE3,2BAF", .badField("LAC")),
    ("310,260,,2BAF", .badField("LAC")),
    ("310,260,8BE3, 2BAF", .badField("CI")),
    ("310,260,8BE3,0x2BAF", .badField("CI")),
    ("310,260,8BE3,123456789", .badField("CI")),
    ("310,260,8BE3,2BAF,1234567", .badField("TAC")),
    ("310,260,8BE3,0", .unusable("cell id 0 is not a cell's")),
    ("310,260,0,2BAF", .unusable("no area code (LAC and TAC are 0 or reserved)")),
    ("310,260,FFFE,2BAF,0", .unusable("no area code (LAC and TAC are 0 or reserved)")),
  ])
  func hostileStringsAreRefusedWithWhy(text: String, problem: ModemCellLocation.Problem) {
    #expect(Self.problem(text) == problem, "\(text)")
    #expect(!problem.description.isEmpty)
  }

  @Test func aVeryLongStringIsRefusedBeforeItIsSplit() {
    let long = String(repeating: "1,", count: 10_000)
    #expect(Self.problem(long) == .fieldCount(20_000))
  }

  @Test func theRadioComesFromAccessTechnologies() {
    // MMModemAccessTechnology bits, ModemManager-enums.h.
    #expect(CellRadio.of(accessTechnologies: 1 << 1) == .gsm)
    #expect(CellRadio.of(accessTechnologies: 1 << 4 | 1 << 3) == .gsm)
    #expect(CellRadio.of(accessTechnologies: 1 << 9) == .wcdma)
    #expect(CellRadio.of(accessTechnologies: 1 << 14) == .lte)
    #expect(CellRadio.of(accessTechnologies: 1 << 14 | 1 << 15) == .lte, "LTE anchoring 5G NSA")
    #expect(CellRadio.of(accessTechnologies: 1 << 17) == .lte, "NB-IoT")
    #expect(CellRadio.of(accessTechnologies: 1 << 15) == nil, "5G NR alone: no API type")
    #expect(CellRadio.of(accessTechnologies: 1 << 10) == nil, "CDMA")
    #expect(CellRadio.of(accessTechnologies: 0) == nil)
  }

  @Test func cellsGoInTheBodyWithTheAPIsFieldsOnly() throws {
    let lte = CellTower(
      radio: .lte, mobileCountryCode: 242, mobileNetworkCode: 1, areaCode: 161, cellId: 27_439_044)
    let unknown = CellTower(
      radio: nil, mobileCountryCode: 262, mobileNetworkCode: 2, areaCode: 0x84CD, cellId: 7)
    let q = GeolocateQuery(accessPoints: [], considerIp: false).with(cells: [lte, unknown, lte])
    #expect(q.cellTowers == [lte, unknown] && q.origin == .cell && q.hasNetworks)
    let json = try JSON.parse(q.body)
    #expect(json.object?.keys.sorted() == ["cellTowers", "considerIp"])
    let cells = try #require(json["cellTowers"]?.array)
    #expect(cells.count == 2)
    #expect(
      cells[0].object?.keys.sorted() == [
        "cellId", "locationAreaCode", "mobileCountryCode", "mobileNetworkCode", "radioType",
      ])
    #expect(cells[0]["radioType"] == .string("lte") && cells[0]["cellId"] == .number(27_439_044))
    #expect(cells[0]["mobileCountryCode"] == .number(242) && cells[0]["mobileNetworkCode"] == .number(1))
    #expect(cells[0]["locationAreaCode"] == .number(161))
    #expect(cells[1]["radioType"] == nil, "no radio type when the modem does not say")
    // No cells: no member.
    #expect(try JSON.parse(GeolocateQuery(accessPoints: [], considerIp: false).body)["cellTowers"] == nil)
  }

  @Test func aChangedServingCellIsAChangedCacheKey() {
    let ap = WifiAccessPoint(bssid: [0, 1, 2, 3, 4, 5], ssid: Array("home".utf8), signal: -50)
    let wifi = GeolocateQuery.wifi([ap])
    let a = CellTower(radio: .lte, mobileCountryCode: 242, mobileNetworkCode: 1, areaCode: 161, cellId: 1)
    var b = a
    b.cellId = 2
    var sameElsewhere = a
    sameElsewhere.radio = nil
    #expect(wifi.with(cells: [a]).cacheKey != wifi.cacheKey)
    #expect(wifi.with(cells: [a]).cacheKey != wifi.with(cells: [b]).cacheKey)
    #expect(wifi.with(cells: [a]).cacheKey == wifi.with(cells: [sameElsewhere]).cacheKey)
    #expect(wifi.with(cells: [a, b]).cacheKey == wifi.with(cells: [b, a]).cacheKey)
    #expect(wifi.with(cells: [a]).origin == .wifi)
    #expect(GeolocateQuery(accessPoints: [], considerIp: false).with(cells: [a]).cacheKey != "ip")
  }
}

/// `[Modem] SuplServer=`: ModemManager's `IP:PORT` or `FQDN:PORT`, refused otherwise with the
/// key's words.
@Suite struct SuplServerKeyTests {
  @Test(arguments: ["supl.google.com:7275", "192.0.2.10:7276", "[2001:db8::1]:7275", "a-b.example:1"])
  func goodServersAreTaken(text: String) {
    var c = DaemonConfig()
    #expect(c.apply(fileText: "[Modem]\nSuplServer=\(text)\n", fileName: "t.conf").isEmpty)
    #expect(c.suplServer == text)
  }

  @Test(arguments: [
    "supl.google.com", "supl.google.com:0", "supl.google.com:65536", "supl.google.com:x", ":7275",
    "-bad.example:7275", "a b:7275", "supl.example.net:7275/path", "http://supl.example.net:7275", "[]:7275",
  ])
  func badServersAreRefusedWithWhy(text: String) {
    var c = DaemonConfig()
    let problems = c.apply(fileText: "[Modem]\nSuplServer=\(text)\n", fileName: "t.conf")
    #expect(problems.count == 1 && c.suplServer == nil, "\(text): \(problems)")
    #expect(problems.first.map { "\($0)".contains("SuplServer=") } == true, "\(problems)")
  }

  @Test func emptyIsNone() {
    var c = DaemonConfig()
    #expect(c.apply(fileText: "[Modem]\nSuplServer=\n", fileName: "t.conf").isEmpty && c.suplServer == nil)
  }
}
