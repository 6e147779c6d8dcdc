import Foundation
import LocCore
import LocProtocol
import Testing

/// The real locd with a `replay:FILE.btsnoop` source and `--clock replay`, driven by
/// `locctl beacons range|monitor --json`: what locctl prints is compared with what the rules
/// of docs/BEACONS.md give from the capture's reference CSV (written by an independent
/// decoder, Tests/Fixtures/beacons) — not with the daemon's own output.
///
/// Simulated time comes from the capture: the request arrives at the wall clock's time, the
/// first advertisement sets the clock back to the capture's start (t0), which moves the first
/// ranging list to t0 + 1 s and the monitor's start to t0 (docs/BEACONS.md, "Time"). Time
/// advances only with advertisements, so lists come every second up to the last one, and an
/// exit comes only when a later advertisement moves time past it.
@Suite(.serialized) struct BeaconDaemonTests {
  static let govee = "494e5445-4c4c-495f-524f-434b535f4857"

  struct Row {
    var time: Instant
    var address: String
    var identity: String
    var uuid: String
    var major: String
    var power: Double
    var rssi: Double
  }

  static func rows(_ capture: String) throws -> [Row] {
    try LocctlBeaconsTests.rows(capture).map { f in
      Row(
        time: try #require(Instant(iso8601: f[1])), address: f[2], identity: "\(f[4]):\(f[5]):\(f[6])",
        uuid: f[4], major: f[5], power: try #require(Double(f[7])), rssi: try #require(Double(f[8])))
    }
  }

  /// The list docs/BEACONS.md describes at `tick` from `rows` (the matching ones): each
  /// transmitter (identity and address) heard in the last 10 s; RSSI the median of its last
  /// 5 s (at most 20 samples); distance 10^((power − rssi) / 20) m with the latest power in
  /// −100...−20 dBm; immediate < 0.5 m, near < 3 m, far beyond, unknown without a distance;
  /// ordered by proximity, distance, RSSI (strongest first), identity and address.
  /// Advertisements exactly at `tick` come after it in the daemon (a due timer fires first).
  static func expected(_ rows: [Row], at tick: Instant) -> [(
    key: String, proximity: String, meters: Double?, rssi: Double?
  )] {
    var heard: [String: [Row]] = [:]
    for row in rows where row.time < tick { heard["\(row.identity) \(row.address)", default: []].append(row) }
    var list: [(key: String, proximity: String, meters: Double?, rssi: Double?)] = []
    for (key, samples) in heard {
      guard let last = samples.last, tick.seconds(since: last.time) < 10 else { continue }
      let recent = samples.filter { tick.seconds(since: $0.time) < 5 }.suffix(20).map(\.rssi).sorted()
      let rssi: Double? =
        recent.isEmpty
        ? nil
        : recent.count % 2 == 1
          ? recent[recent.count / 2] : (recent[recent.count / 2 - 1] + recent[recent.count / 2]) / 2
      let power = samples.last { (-100 ... -20).contains($0.power) }?.power
      var meters: Double?
      if let rssi, let power { meters = pow(10, (power - rssi) / 20) }
      let proximity = meters.map { $0 < 0.5 ? "immediate" : $0 < 3 ? "near" : "far" } ?? "unknown"
      list.append((key, proximity, meters, rssi))
    }
    let rank = ["immediate": 0, "near": 1, "far": 2, "unknown": 3]
    return list.sorted { a, b in
      if a.proximity != b.proximity { return rank[a.proximity]! < rank[b.proximity]! }
      if a.meters != b.meters { return (a.meters ?? .infinity) < (b.meters ?? .infinity) }
      if a.rssi != b.rssi { return (a.rssi ?? -.infinity) > (b.rssi ?? -.infinity) }
      // Identity (UUID, then major and minor as numbers), then address.
      func parts(_ key: String) -> (String, Int, Int, String) {
        let f = key.split(whereSeparator: { $0 == ":" || $0 == " " }).map(String.init)
        return (f[0], Int(f[1])!, Int(f[2])!, key.split(separator: " ")[1].description)
      }
      return parts(a.key) < parts(b.key)
    }
  }

  /// locd replaying `capture` in simulated time.
  static func daemon(_ capture: String) throws -> LocdProcess {
    let path = Binaries.fixture("beacons/\(capture).btsnoop").path
    return try LocdProcess(arguments: ["--clock", "replay", "--source", "replay:\(path)?speed=max"])
  }

  /// The events `locctl beacons VERB ... --json --count N` printed.
  static func events(_ locd: LocdProcess, _ arguments: [String], count: Int) throws -> [EventMessage] {
    let r = try locd.locctl(["beacons"] + arguments + ["--json", "--count", "\(count)"])
    #expect(r.status == 0, "\(r.stderr)\n\(locd.log.suffix(2000))")
    return try r.stdout.split(separator: "\n").map { line in
      guard case .event(let e) = try ServerMessage.decode(Array(line.utf8)) else {
        throw HarnessError("not an event: \(line)")
      }
      return e
    }
  }

  @Test(arguments: LocctlBeaconsTests.captures)
  func rangingFollowsTheReference(capture: String) throws {
    let all = try Self.rows(capture)
    let rows = all.filter { $0.uuid == Self.govee }
    let t0 = try #require(all.first?.time)
    let last = try #require(all.last?.time)
    // A list at t0 + k s for every k >= 1 up to the last advertisement.
    let count = Int(last.microsecondsSinceEpoch - t0.microsecondsSinceEpoch) / 1_000_000
    let locd = try Self.daemon(capture)
    defer { locd.stop() }
    let events = try Self.events(locd, ["range", Self.govee], count: count)
    try #require(events.count == count)
    var nonEmpty = 0
    for (k, event) in events.enumerated() {
      let tick = t0.adding(seconds: Double(k + 1))
      #expect(event.time == tick)
      guard case .beaconsRanged(let ranged) = event.data else {
        Issue.record("not a ranging list: \(event)")
        continue
      }
      #expect(ranged.constraint.description == Self.govee)
      let want = Self.expected(rows, at: tick)
      let got = ranged.beacons
      #expect(
        got.map { "\($0.identity) \($0.address)" } == want.map(\.key), "at \(tick.iso8601(fractionDigits: 6))"
      )
      #expect(got.map(\.proximity.rawValue) == want.map(\.proximity))
      for (g, w) in zip(got, want) {
        #expect(g.rssi?.value == w.rssi)
        // To the millimetre on the wire.
        #expect(abs((g.accuracy?.value ?? -1) - (w.meters ?? -1)) <= 0.0005 + 1e-9)
      }
      if !got.isEmpty { nonEmpty += 1 }
    }
    #expect(nonEmpty > 0)
    // locctl has gone: its request ended; the capture plays to its end, every advertisement
    // counted as a sighting (the CSV lists them all: the captures have no AltBeacon).
    let status = try locd.waitForStatus {
      $0.beacons?.counters.first { $0.name == "sightings" }?.value == all.count
    }
    let beacons = try #require(status.beacons)
    #expect(!beacons.scanning && beacons.ranging == 0 && beacons.monitors == 0)
    #expect(status.sources.first?.counter("advertisements") == all.count)
    #expect(status.sources.first?.counter("ibeacon") == all.count)
  }

  /// Monitoring with the default ExitAfter (30 s): entered at each matching advertisement
  /// after the region was unknown or outside; exited 30 s after the last one when a later
  /// advertisement (any) moves time past that; determined outside at t0 + 30 s when nothing
  /// matched before.
  static func expectedRegion(_ matching: [Instant], all: [Instant], t0: Instant) -> [(String, Instant)] {
    var want: [(String, Instant)] = []
    let end = all.last!
    guard let first = matching.first else {
      return end >= t0.adding(seconds: 30) ? [("determined-outside", t0.adding(seconds: 30))] : []
    }
    if first >= t0.adding(seconds: 30) { want.append(("determined-outside", t0.adding(seconds: 30))) }
    want.append(("entered", first))
    for (t, next) in zip(matching, matching.dropFirst().map { Optional($0) } + [nil]) {
      let exit = t.adding(seconds: 30)
      if let next {
        if next >= exit { want += [("exited", exit), ("entered", next)] }
      } else if end >= exit {
        want.append(("exited", exit))
      }
    }
    return want
  }

  @Test(arguments: [
    ("btsnoop_hci", govee), ("20230209-h5075-and-h5074-btsnoop_hci", govee),
    ("20230209-h5075-and-h5074-btsnoop_hci", "2686f39c-bada-4658-854a-a62e7e5e8b8d:1"),
    ("20240127-h5100-btsnoop_hci", govee),
  ])
  func monitoringFollowsTheReference(capture: String, constraint: String) throws {
    let all = try Self.rows(capture)
    let parts = constraint.split(separator: ":").map(String.init)
    let matching = all.filter { $0.uuid == parts[0] && (parts.count < 2 || $0.major == parts[1]) }.map(\.time)
    let t0 = try #require(all.first?.time)
    let want = Self.expectedRegion(matching, all: all.map(\.time), t0: t0)
    try #require(want.count >= 1)
    let locd = try Self.daemon(capture)
    defer { locd.stop() }
    let events = try Self.events(locd, ["monitor", constraint], count: want.count)
    let got: [(String, Instant)] = events.compactMap { e in
      guard case .beaconRegion(let r) = e.data else { return nil }
      #expect(r.constraint.description == constraint)
      #expect(r.state == (r.event == .entered ? .inside : .outside))
      return (r.event.rawValue, e.time)
    }
    #expect(got.map(\.0) == want.map(\.0), "\(capture) \(constraint)")
    #expect(got.map(\.1) == want.map(\.1))
    if capture == "20230209-h5075-and-h5074-btsnoop_hci" && constraint == Self.govee {
      #expect(want.map(\.0).filter { $0 == "exited" }.count >= 1, "the capture has gaps over 30 s")
    }
  }
}

/// Wrong constraints are usage errors, before any daemon is asked.
@Suite struct BeaconUsageTests {
  @Test(arguments: [
    ["range", "nope"], ["range", "494e5445-4c4c-495f-524f-434b535f4857::1"],
    ["monitor", "494e5445-4c4c-495f-524f-434b535f4857:65536"],
    ["range", "--exit-after", "5", "494e5445-4c4c-495f-524f-434b535f4857"],
    ["monitor", "--count", "0", "494e5445-4c4c-495f-524f-434b535f4857"], ["range"],
  ])
  func refused(arguments: [String]) throws {
    let r = try run(Binaries.locctl, ["--socket", "/nonexistent/locd.sock", "beacons"] + arguments)
    #expect(r.status == 2, "\(arguments): \(r.stderr)")
  }
}
