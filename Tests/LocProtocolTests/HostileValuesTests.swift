import LocProtocol
import Testing

@testable import LocCore

/// Every number and member a client or a planted state file can set, replaced with values
/// chosen to break a conversion: numbers beyond what `Duration`, `Int`, `UInt32` or
/// `Int64` can hold (a `Duration` from a Double traps past about 1.7e20 s, an `Int` past
/// 9.2e18), the smallest subnormal, negative zero, integers one past a limit, and values
/// of the wrong kind. The decoders must answer each with a value or an error; a trap fails
/// the whole test process, so a conversion made before its range check is found here, by a
/// harness (issue 28, finding 1: `"dwell": 1e21` crashed locd).
///
/// A request that still decodes must be one the client side encodes back to the same
/// request (what the wire fuzzer checks on random bytes).
@Suite struct HostileValuesTests {
  /// Values that break conversions, then values of the wrong kind.
  static let hostile: [JSON] =
    [
      1e21, 2e20, 1.7e20, -1e300, 1e308, -1.7976931348623157e308, 5e-324, -0.0, -1, 0.5, 86_400.5, 86_401,
      4_294_967_295, 4_294_967_296, 9_007_199_254_740_993, 9.3e18, -9.3e18, 1.8446744073709552e19,
    ].map { JSON.number($0) } + [
      .string(""), .string(String(repeating: "x", count: 5_000)), .string("\u{0}\u{202E}\u{2028}"), .null,
      .bool(true), .array([]), .array([.number(1e21)]), .object([:]), .object(["seconds": .number(1e21)]),
    ]

  /// `json` with the value at each member or element (at any depth, the root excluded)
  /// replaced by each hostile value.
  static func mutations(of json: JSON) -> [JSON] {
    var out: [JSON] = []
    switch json {
    case .object(let o):
      for key in o.keys {
        let child = o[key]!
        for value in hostile + mutations(of: child) {
          var copy = o
          copy[key] = value
          out.append(.object(copy))
        }
      }
    case .array(let a):
      for i in a.indices {
        for value in hostile + mutations(of: a[i]) {
          var copy = a
          copy[i] = value
          out.append(.array(copy))
        }
      }
    default: break
    }
    return out
  }

  @Test func everyRequestParamSurvivesHostileValues() throws {
    var decoded = 0
    var refused = 0
    for request in try WireSamples.requests() {
      let line = try JSON.parse(Array(request.line(id: .number(1)).utf8))
      var params = line["params"] ?? .object([:])
      // A member the sample leaves out is tried too where the method names it (dwell).
      if request.method == "register-region", var o = params.object {
        if o["dwell"] == nil { o["dwell"] = .number(300) }
        params = .object(o)
      }
      for mutated in [params] + Self.mutations(of: params) {
        var o = line.object!
        o["params"] = mutated
        switch WireRequest.decode(Array(JSON.object(o).serialized.utf8)) {
        case .success((let id, let back)):
          decoded += 1
          let again = WireRequest.decode(Array(back.line(id: id).utf8))
          #expect(
            (try? again.get())?.1 == back,
            "\(JSON.object(o).serialized.prefix(300)) -> \(back.line(id: id).prefix(300))")
        case .failure(let failure):
          refused += 1
          #expect(
            [.invalidParams, .invalidRequest, .unknownMethod].contains(failure.error.code),
            "\(failure.error.code) for \(JSON.object(o).serialized.prefix(300))")
        }
      }
    }
    // Each sample's own params decode, and most hostile values are refused.
    #expect(decoded >= 60)
    #expect(refused > 1_500)
  }

  /// The exact request of the finding, and its neighbours: refused as invalid params.
  @Test func aDwellBeyondAnyDurationIsRefusedNotATrap() throws {
    // 3001e21: what the params fuzzer (fuzz/run.sh params) found on the code before the fix.
    for dwell in ["1e21", "2e20", "1e308", "-1e300", "3001e21", "0", "0.5", "86400.001"] {
      let line =
        #"{"id":1,"method":"register-region","params":{"id":"x","lat":59.9,"lon":10.7,"radius":100,"#
        + #""notify":["dwell"],"dwell":\#(dwell)}}"#
      guard case .failure(let failure) = WireRequest.decode(Array(line.utf8)) else {
        Issue.record("dwell \(dwell) was accepted")
        continue
      }
      #expect(failure.error.code == .invalidParams)
      #expect(failure.error.message.contains("1 to 86400"), "\(failure.error.message)")
    }
    let ok =
      #"{"id":1,"method":"register-region","params":{"id":"x","lat":59.9,"lon":10.7,"radius":100,"#
      + #""notify":["dwell"],"dwell":86400}}"#
    let (_, request) = try WireRequest.decode(Array(ok.utf8)).get()
    guard case .request(.registerRegion(let region)) = request else {
      Issue.record("not a register-region: \(request)")
      return
    }
    #expect(region.dwell == .seconds(86_400))
  }

  /// The server's replies as a client decodes them into typed views (LocationManager and
  /// locctl read a daemon's answers; a daemon of another build must not crash them either):
  /// every member of each sample reply replaced.
  @Test func everyReplyViewSurvivesHostileValues() throws {
    typealias S = WireSamples
    let decoders: [(Response, (JSON) throws -> Void)] = [
      (.status(try S.status()), { _ = try Call.status.result($0) }),
      (.timers([try S.timer()], problems: [], now: S.t), { _ = try Call.listTimers.result($0) }),
      (
        .located(LocateAnswer(position: S.fresh, wanted: 50, waited: .seconds(2.5), note: "n")),
        { _ = try Call.locate().result($0) }
      ),
      (.acquisition(S.acquisition()), { _ = try Call.refresh.result($0) }),
      (.regions(RegionWireTests.monitored), { _ = try Call.regionState().result($0) }),
      (
        .waited(try S.waitedForRule()),
        { _ = try Call.wait(.rule(try TimerRule(parsing: "sunset"))).result($0) }
      ),
    ]
    var tried = 0
    for (response, decode) in decoders {
      let result = ServerMessage.reply(.number(1), response).json["result"]!
      try decode(result)
      for mutated in Self.mutations(of: result) {
        tried += 1
        _ = try? decode(mutated)
      }
    }
    #expect(tried > 5_000)
  }

  /// apps.json, state.json and timers.json as a planted or damaged file could hold them:
  /// every member of a full sample replaced; each is read or refused with an error.
  @Test func everyStateFileMemberSurvivesHostileValues() throws {
    let t = Instant(iso8601: "2026-06-21T10:00:00Z")!
    var record = AppRecord(key: AppKey(uid: 1000, app: AppID("org.example.Fences")!), firstSeen: t)
    record.status = .always
    record.decidedBy = .agent
    record.decidedAt = t
    record.lastUsed = t
    record.purpose = "fences"
    record.registrations = [.region, .visit]
    record.launchUnit = "app-org.example.Fences.service"
    record.regions = [
      try CircularRegion(
        id: RegionID("home"), centre: Coordinate(lat: 59.9, lon: 10.7)!, radius: 150, dwell: .seconds(300))
    ]
    let files: [(String, [UInt8], ([UInt8]) -> Bool)] = [
      ("apps.json", AppStore([record]).encoded(), { (try? AppStore(decoding: $0)) != nil }),
      (
        "state.json", StoredState(lastKnown: WireSamples.position, manual: WireSamples.manual).encoded(),
        { (try? StoredState(decoding: $0)) != nil }
      ),
      (
        "timers.json",
        TimerStore(
          checkpoint: t,
          runtime: [TimerDefinition(name: "lamp", rule: try TimerRule(parsing: "sunset-30m Mon-Fri"))]
        ).encoded(), { (try? TimerStore(decoding: $0)) != nil }
      ),
    ]
    for (name, bytes, read) in files {
      #expect(read(bytes), "\(name): the sample itself reads")
      var readable = 0
      var refused = 0
      for mutated in Self.mutations(of: try JSON.parse(bytes)) {
        if read(Array(mutated.serialized.utf8)) { readable += 1 } else { refused += 1 }
      }
      #expect(refused > 0, "\(name): some hostile values are refused")
      _ = readable
    }
    // The finding's file: a stored region with a dwell no Duration can hold.
    var o = try JSON.parse(AppStore([record]).encoded()).object!
    var app = o["apps"]![0]!.object!
    var region = app["regions"]![0]!.object!
    region["dwell"] = .number(1e21)
    app["regions"] = .array([.object(region)])
    o["apps"] = .array([.object(app)])
    // The region is left out and said so; the app's decision stays.
    let read = try AppStore(decoding: Array(JSON.object(o).serialized.utf8))
    #expect(read.records.map(\.key) == [record.key] && read.records[0].status == .always)
    #expect(read.records[0].regions.isEmpty)
    #expect(
      read.problem?.contains("a dwell time must be within 1 s and 24 h") == true, "\(read.problem ?? "")")
  }
}
