import LocProtocol
import Testing

@testable import LocCore

/// A location event, the one line every fix sends to every subscriber, is written straight
/// from its views (`EventMessage.lineBytes`), not through a tree. Its bytes are the ones the
/// tree-building encoder wrote before (kept below as `treeLine`, as it was), for fixes with
/// every field and with each missing, and what a client decodes writes the same line.
@Suite struct EventLineTests {
  /// The encoder this replaced: the event's members as a tree, the fix's as the literal
  /// FixView.json held, serialized.
  static func treeLine(_ e: EventMessage, _ event: LocationEvent) -> [UInt8] {
    let fix: JSON =
      event.fix.map { f in
        .object([
          "time": WireFormat.time(f.time, 3), "mode": .int(f.mode.rawValue),
          "lat": .optional(f.coordinate?.latitude.value), "lon": .optional(f.coordinate?.longitude.value),
          "altMSL": WireFormat.meters(f.altitudeMSL), "speed": .optional(f.speed?.value),
          "track": .optional(f.track?.value),
          "accuracy": WireFormat.meters(f.horizontalAccuracy), "quality": .optional(f.quality?.word),
          "satellitesUsed": .optional(f.satellitesUsed), "satellitesInView": .optional(f.satellitesInView),
          "hdop": .optional(f.hdop),
        ])
      } ?? .null
    let tree = JSON.object([
      "type": .string("event"), "event": .string("location"), "time": WireFormat.time(e.time, 6),
      "data": .object(["position": event.position.json, "fix": fix]),
    ])
    return Array(tree.serialized.utf8) + [0x0A]
  }

  struct Generator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return state >> 11
    }
    mutating func unit() -> Double { Double(next() % (1 << 52)) / Double(1 << 52) }
    /// A value made from this generator, or (one time in four) none.
    mutating func maybe<T>(_ make: (inout Generator) -> T) -> T? {
      if next() % 4 == 0 { return nil }
      return make(&self)
    }
  }

  static func fixes(count: Int) -> [Fix] {
    var g = Generator(state: 0x5EED_0027)
    let t = WireSamples.t
    var out = [WireSamples.fix, WireSamples.noFix]
    let qualities: [FixQuality] = [.gps, .dgps, .rtkFixed, .rtkFloat, .deadReckoning]
    for i in 0..<count {
      let coordinate = g.maybe { Coordinate(lat: $0.unit() * 180 - 90, lon: $0.unit() * 360 - 180)! }
      out.append(
        Fix(
          time: t.adding(seconds: Double(i) * 0.1 + g.unit()), coordinate: coordinate,
          mode: coordinate == nil ? .noFix : (g.next() % 2 == 0 ? .twoD : .threeD),
          quality: g.maybe { qualities[Int($0.next() % UInt64(qualities.count))] },
          altitudeMSL: g.maybe { Meters($0.unit() * 9000 - 400) },
          speed: g.maybe { MetersPerSecond($0.unit() * 80) }, course: g.maybe { Degrees($0.unit() * 360) },
          horizontalAccuracy: g.maybe { Meters($0.unit() * 300) },
          satellitesUsed: g.maybe { Int($0.next() % 40) }, satellitesInView: g.maybe { Int($0.next() % 80) },
          hdop: g.maybe { $0.unit() * 20 }))
    }
    return out
  }

  @Test func theLineIsTheTreeEncodersLine() throws {
    let positions = [WireSamples.fresh, WireSamples.degraded]
    for (i, fix) in Self.fixes(count: 2_000).enumerated() {
      let resolved = positions[i % 2]
      let e = EventMessage(
        .location(resolved, fix: i % 7 == 3 ? nil : fix), at: fix.time.adding(seconds: 0.01))
      guard case .location(let event) = e.data else {
        Issue.record("not a location event")
        continue
      }
      let line = e.lineBytes
      #expect(line == Self.treeLine(e, event), "fix \(i)")
      #expect(line == ServerMessage.event(e).lineBytes)
      #expect(line.last == 0x0A && line.dropLast().allSatisfy { $0 != 0x0A })
      // What a client reads back is the event that was written.
      guard case .event(let back) = try ServerMessage.decode(line.dropLast()) else {
        Issue.record("not an event")
        continue
      }
      // Numbers go out with 15 significant digits (the wire's precision), so the decoded
      // event is the written one to that precision: it writes the same line again.
      #expect(back.lineBytes == line, "fix \(i)")
      guard case .location(let read) = back.data else { continue }
      #expect(read.fix?.satellitesUsed == event.fix?.satellitesUsed && read.fix?.mode == event.fix?.mode)
      #expect(read.position.tier == event.position.tier)
    }
  }

  @Test func otherEventsAreTheTreesLineToo() throws {
    let events: [EventMessage] = [
      EventMessage(time: WireSamples.t, data: .other(name: "future-kind", data: .object(["x": .int(1)]))),
      EventMessage(
        .significantChange(from: nil, to: WireSamples.position, distance: nil), at: WireSamples.t),
    ]
    for e in events {
      let tree = JSON.object([
        "type": .string("event"), "event": .string(e.data.name), "time": WireFormat.time(e.time, 6),
        "data": e.data.json,
      ])
      #expect(e.lineBytes == Array(tree.serialized.utf8) + [0x0A])
    }
  }
}
