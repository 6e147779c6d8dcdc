import Foundation
import LocCore
import LocProtocol
import Testing

/// The examples in docs/PROTOCOL.md are real messages: every ```json block is a transcript
/// of requests (`method`) and server messages (`type`); each request decodes, each server
/// message decodes, and encodes back to exactly the members the page shows (in any order),
/// and each reply's `result` decodes into the view its request promises.
@Suite struct ProtocolDocTests {
  static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../docs/PROTOCOL.md").standardizedFileURL.path

  /// The JSON values of every ```json block, in order.
  static func examples() throws -> [JSON] {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    var values: [JSON] = []
    for block in text.components(separatedBy: "```json\n").dropFirst() {
      guard let end = block.range(of: "\n```") else { continue }
      values += try split(Array(block[..<end.lowerBound].utf8)).map { try JSON.parse($0) }
    }
    return values
  }

  /// Cuts concatenated JSON objects apart (top-level braces outside strings).
  static func split(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
    var out: [ArraySlice<UInt8>] = []
    var depth = 0
    var start = 0
    var inString = false
    var escaped = false
    for (i, b) in bytes.enumerated() {
      if inString {
        if escaped {
          escaped = false
        } else if b == 0x5C {
          escaped = true
        } else if b == 0x22 {
          inString = false
        }
        continue
      }
      switch b {
      case 0x22: inString = true
      case UInt8(ascii: "{"):
        if depth == 0 { start = i }
        depth += 1
      case UInt8(ascii: "}"):
        depth -= 1
        if depth == 0 { out.append(bytes[start...i]) }
      default: break
      }
    }
    return out
  }

  /// `json` with every object's members sorted by key, to compare regardless of order.
  static func canonical(_ json: JSON) -> JSON {
    switch json {
    case .object(let o):
      var sorted = JSONObject()
      for key in o.keys.sorted() { sorted[key] = canonical(o[key]!) }
      return .object(sorted)
    case .array(let a): return .array(a.map(canonical))
    default: return json
    }
  }

  /// The result view the request's method promises, encoded again.
  static func result(of request: WireRequest, _ json: JSON) throws -> JSON {
    guard case .request(let r) = request else { return try Call.hello(app: nil).result(json).json }
    switch r {
    case .status: return try Call.status.result(json).json
    case .subscribe(let k), .unsubscribe(let k): return try Call.subscribe(k).result(json).json
    case .setLocation, .clearLocation: return try Call.clearLocation.result(json).json
    case .reload, .removeTimer: return try Call.reload.result(json).json
    case .listTimers: return try Call.listTimers.result(json).json
    case .sky: return try Call.sky.result(json).json
    case .showTimer, .addTimer: return try Call.showTimer("x").result(json).json
    case .locate: return try Call.locate().result(json).json
    case .refresh: return try Call.refresh.result(json).json
    case .requestAuthorization, .requestTemporaryFullAccuracy, .setActivity, .startUpdates:
      return try Call.setActivity(.foreground).result(json).json
    case .stopUpdates, .answerPrompt: return try Call.stopUpdates.result(json).json
    case .registerAgent: return try Call.registerAgent.result(json).json
    case .listApps: return try Call.listApps().result(json).json
    case .changeApp(let app, _, _): return try Call.changeApp(app, .reset).result(json).json
    case .rangeBeacons(let c): return try Call.rangeBeacons(c).result(json).json
    case .monitorBeacons(let c, _): return try Call.monitorBeacons(c).result(json).json
    case .stopRangingBeacons(let c), .stopMonitoringBeacons(let c):
      return try Call.stopRangingBeacons(c).result(json).json
    case .wait(let target): return try Call.wait(target).result(json).json
    case .registerRegion, .regionState: return try Call.regionState().result(json).json
    case .unregisterRegion, .monitorVisits, .setLaunchUnit:
      return try Call.monitorVisits(true).result(json).json
    case .startHeading, .stopHeading: return try Call.stopHeading.result(json).json
    case .lightDark, .setMode: return try Call.lightDark().result(json).json
    }
  }

  @Test func everyExampleDecodes() throws {
    let values = try Self.examples()
    #expect(values.count >= 14, "examples found in \(Self.path)")
    var requests: [RequestID: WireRequest] = [:]
    var replies = 0
    for value in values {
      if value["method"] != nil {
        let (id, request) = try WireRequest.decode(Array(value.serialized.utf8)).get()
        requests[id] = request
        continue
      }
      let message = try ServerMessage.decode(value)
      #expect(Self.canonical(message.json) == Self.canonical(value), "\(value.serialized)")
      if case .reply(let id, let result) = message {
        let request = try #require(requests[id], "the example's request \(id) comes before its reply")
        #expect(try Self.canonical(Self.result(of: request, result)) == Self.canonical(result))
        replies += 1
      }
    }
    #expect(replies >= 5)
  }

  /// The page's title and greeting name the version this build speaks, and the changelog
  /// has an entry for it.
  @Test func pageNamesTheCurrentVersion() throws {
    let text = try String(contentsOfFile: Self.path, encoding: .utf8)
    let v = ProtocolVersion.current
    #expect(text.hasPrefix("# The locd socket protocol, version \(v)\n"))
    #expect(text.contains(#""protocol":{"major":\#(v.major),"minor":\#(v.minor)}"#))
    #expect(text.contains("- **\(v)** "), "a changelog entry for \(v)")
  }
}
