import Foundation
import LocCore
import Testing

/// Each real capture replayed through ranging and monitoring with one wildcard constraint per
/// UUID (so every beacon of a UUID is one region), ticked every second. The expectations are
/// worked out here from the reference CSV, with the rules docs/BEACONS.md states — not from
/// the machine's own output.
@Suite struct BeaconReplayTests {
  /// The expected ranging list at `now` from the reference rows of one UUID.
  struct Expected {
    var row: BeaconFixtures.Row
    var proximity: BeaconProximity
    var meters: Double?
    var rssi: Double?
    var key: String { "\(row.uuid):\(row.major):\(row.minor) \(row.address)" }
  }

  static func expectedList(_ rows: [BeaconFixtures.Row], at now: Instant) -> [Expected] {
    var byBeacon: [String: [(Instant, BeaconFixtures.Row)]] = [:]
    for row in rows {
      let t = Instant(iso8601: row.time)!
      guard t <= now else { continue }
      byBeacon["\(row.uuid):\(row.major):\(row.minor) \(row.address)", default: []].append((t, row))
    }
    var list: [Expected] = []
    for heard in byBeacon.values {
      // Forgotten 10 s after it was last heard.
      guard let last = heard.last, now.seconds(since: last.0) < 10 else { continue }
      // Median of the RSSIs of the last 5 s, at most the 20 latest.
      let recent = heard.filter { now.seconds(since: $0.0) < 5 }.suffix(20).map { Double($0.1.rssi) }.sorted()
      let rssi: Double? =
        recent.isEmpty
        ? nil
        : recent.count % 2 == 1
          ? recent[recent.count / 2] : (recent[recent.count / 2 - 1] + recent[recent.count / 2]) / 2
      // The latest plausible measured power (-100...-20 dBm).
      let power = heard.last { (-100 ... -20).contains($0.1.measuredPower) }.map {
        Double($0.1.measuredPower)
      }
      var meters: Double?
      if let rssi, let power { meters = pow(10, (power - rssi) / 20) }
      let proximity: BeaconProximity =
        meters.map { $0 < 0.5 ? .immediate : $0 < 3 ? .near : .far } ?? .unknown
      list.append(Expected(row: last.1, proximity: proximity, meters: meters, rssi: rssi))
    }
    let rank: [BeaconProximity: Int] = [.immediate: 0, .near: 1, .far: 2, .unknown: 3]
    return list.sorted { a, b in
      if a.proximity != b.proximity { return rank[a.proximity]! < rank[b.proximity]! }
      if a.meters != b.meters { return (a.meters ?? .infinity) < (b.meters ?? .infinity) }
      if a.rssi != b.rssi { return (a.rssi ?? -.infinity) > (b.rssi ?? -.infinity) }
      // Then by identity (UUID, major, minor as numbers) and address.
      let x = (a.row.uuid, a.row.major, a.row.minor, a.row.address)
      let y = (b.row.uuid, b.row.major, b.row.minor, b.row.address)
      return x < y
    }
  }

  @Test(arguments: BeaconFixtures.captures)
  func rangingAndMonitoringFollowTheReference(capture: String) throws {
    let rows = try BeaconFixtures.rows(capture)
    let uuids = Array(Set(rows.map(\.uuid))).sorted()
    let advertisements = BeaconFixtures.decode(try BeaconFixtures.bytes(capture)).advertisements
    let first = try #require(rows.first)
    let last = try #require(rows.last)
    let start = try #require(Instant(iso8601: first.time)).adding(seconds: -0.5)
    let end = try #require(Instant(iso8601: last.time)).adding(seconds: 40)

    var machine = BeaconMachine()
    // Ids 1, 3, 5...: ranging per UUID; 2, 4, 6...: monitoring with ExitAfter 30 s.
    for (i, uuid) in uuids.enumerated() {
      let constraint = try #require(BeaconConstraint(uuid))
      _ = machine.handle(.subscribe(BeaconSubscriptionID(UInt64(2 * i + 1)), .range(constraint)), at: start)
      _ = machine.handle(
        .subscribe(BeaconSubscriptionID(UInt64(2 * i + 2)), .monitor(constraint, exitAfter: .seconds(30))),
        at: start)
    }
    var pending = advertisements[...]
    var regionEvents: [(UInt64, BeaconRegionEvent, Instant)] = []
    var ticks = 0
    var nonEmptyLists = 0
    // Neighbours in a list that both have a distance: the ordering was really exercised.
    var knownPairs = 0
    var tick = start.adding(seconds: 1)
    while tick <= end {
      // Advertisements up to and including the tick's instant come first.
      while let ad = pending.first, ad.time <= tick {
        for case .region(let id, let event) in machine.handle(.heard(ad.sighting), at: ad.time) {
          regionEvents.append((id.raw, event, ad.time))
        }
        pending = pending.dropFirst()
      }
      let outputs = machine.handle(.tick, at: tick)
      ticks += 1
      for output in outputs {
        switch output {
        case .region(let id, let event):
          regionEvents.append((id.raw, event, tick))
        case .ranged(let id, let list):
          let uuid = uuids[Int(id.raw - 1) / 2]
          let want = Self.expectedList(rows.filter { $0.uuid == uuid }, at: tick)
          let got = list.map { "\($0.identity) \($0.address)" }
          #expect(got == want.map(\.key), "\(uuid) at \(tick.iso8601(fractionDigits: 3))")
          #expect(list.map(\.proximity) == want.map(\.proximity))
          for (g, w) in zip(list, want) {
            #expect(g.rssi?.value == w.rssi)
            #expect(abs((g.accuracy?.value ?? -1) - (w.meters ?? -1)) < 1e-9)
          }
          if !list.isEmpty { nonEmptyLists += 1 }
          knownPairs += zip(list, list.dropFirst()).filter { $0.accuracy != nil && $1.accuracy != nil }.count
        default:
          Issue.record("unexpected \(output)")
        }
      }
      tick = tick.adding(seconds: 1)
    }
    #expect(ticks > 100)
    #expect(nonEmptyLists > 0)
    // btsnoop_hci.btsnoop has five beacons minutes apart, never two in one list; the others do.
    if capture != "btsnoop_hci" { #expect(knownPairs >= 10) }

    for (i, uuid) in uuids.enumerated() {
      let times = rows.filter { $0.uuid == uuid }.map { Instant(iso8601: $0.time)! }
      let want = Self.expectedRegionEvents(heard: times, start: start, end: end)
      let got = regionEvents.filter { $0.0 == UInt64(2 * i + 2) }.map { ($0.1, $0.2) }
      #expect(got.map(\.0) == want.map(\.0), "\(uuid)")
      #expect(got.map(\.1) == want.map(\.1), "\(uuid)")
    }
  }

  /// Monitoring with ExitAfter 30 s, ticked every second from `start`: "outside" determined at
  /// the first tick 30 s or more after the start if nothing came before it; entered at the
  /// first advertisement; exited at the first tick 30 s or more after an advertisement with
  /// no other in between; entered again at the next.
  static func expectedRegionEvents(heard times: [Instant], start: Instant, end: Instant) -> [(
    BeaconRegionEvent, Instant
  )] {
    func firstTick(after t: Instant) -> Instant {
      start.adding(seconds: t.adding(seconds: 30).seconds(since: start).rounded(.up))
    }
    var want: [(BeaconRegionEvent, Instant)] = []
    if firstTick(after: start) < times[0] { want.append((.determinedOutside, firstTick(after: start))) }
    want.append((.entered, times[0]))
    for (t, next) in zip(times, times.dropFirst() + [end.adding(seconds: 3600)]) {
      let exitTick = firstTick(after: t)
      if exitTick < next && exitTick <= end {
        want.append((.exited, exitTick))
        if next <= end { want.append((.entered, next)) }
      }
    }
    return want
  }
}
