import LocCore
import LocSystem

/// `locbench beacons FILE... [--rounds N] [--advertisements N]`: the CPU cost of beacon
/// advertisements through the decoder and the ranging machine.
///
/// - real mix: the captures as recorded (mostly other advertisers), decode only, per report;
/// - beacons only: every iBeacon record of the captures, repeated into a capture of N
///   advertisements 100 µs apart (10,000 a second), decoded and then fed to a `BeaconMachine`
///   with a ranging and a monitoring request per UUID, ticked every second of capture time;
///   once with the captures' own transmitters and once with 256 (addresses varied).
///
/// Figures are CPU time of this process (CLOCK_PROCESS_CPUTIME_ID), the median of the rounds.
enum BeaconsBenchmark: Benchmark {
  static let name = "beacons"

  static func run(_ arguments: [String]) -> Int32 {
    var paths: [String] = []
    var rounds = 5
    var count = 200_000
    var i = 0
    while i < arguments.count {
      if arguments[i] == "--rounds", i + 1 < arguments.count, let n = Int(arguments[i + 1]), n > 0 {
        rounds = n
        i += 2
      } else if arguments[i] == "--advertisements", i + 1 < arguments.count, let n = Int(arguments[i + 1]),
        n > 0
      {
        count = n
        i += 2
      } else {
        paths.append(arguments[i])
        i += 1
      }
    }
    guard !paths.isEmpty else {
      print("usage: locbench beacons FILE.btsnoop... [--rounds N] [--advertisements N]")
      return 2
    }
    var captures: [[UInt8]] = []
    for path in paths {
      do {
        captures.append(try FileIO.read(path: path, limit: 1 << 30))
      } catch {
        print("locbench: beacons: cannot read \(path): \(error)")
        return 1
      }
    }
    realMix(captures, rounds: rounds)
    let (events, uuids) = beaconEvents(captures)
    guard !events.isEmpty else {
      print("locbench: beacons: no beacon advertisements in the captures")
      return 1
    }
    let own = synthesize(events, count: count, transmitters: nil)
    let many = synthesize(events, count: count, transmitters: 256)
    print("beacons only: \(count) advertisements, 10,000/s of capture time, from \(events.count) real ones")
    beaconsOnly(own, uuids: uuids, label: "own transmitters", rounds: rounds)
    beaconsOnly(many, uuids: uuids, label: "256 transmitters", rounds: rounds)
    return 0
  }

  /// Decode cost per advertising report of the captures as they are.
  static func realMix(_ captures: [[UInt8]], rounds: Int) {
    var samples: [Double] = []
    var counters = BeaconCaptureDecoder.Counters()
    for _ in 0..<rounds {
      var reports = 0
      var beacons = 0
      let start = cpuSeconds()
      for capture in captures {
        var decoder = BeaconCaptureDecoder()
        feed(capture, to: &decoder) { _ in beacons += 1 }
        decoder.finish()
        reports += decoder.counters.reports
        counters = decoder.counters
      }
      samples.append((cpuSeconds() - start) / Double(max(reports, 1)))
      _ = beacons
    }
    let perReport = median(samples)
    print(
      "real mix (\(captures.count) captures; last: \(counters)): decode \(ns(perReport)) ns CPU per"
        + " advertising report (every record read)"
    )
  }

  /// Decode, then decode and ranging, per advertisement; prints the share of a core at 10,000/s.
  static func beaconsOnly(_ capture: [UInt8], uuids: [BeaconUUID], label: String, rounds: Int) {
    var decodeSamples: [Double] = []
    var fullSamples: [Double] = []
    var ads = 0
    var lists = 0
    var tracked = 0
    for _ in 0..<rounds {
      var decoder = BeaconCaptureDecoder()
      var n = 0
      var start = cpuSeconds()
      feed(capture, to: &decoder) { _ in n += 1 }
      decodeSamples.append((cpuSeconds() - start) / Double(max(n, 1)))
      ads = n

      var machine: BeaconMachine?
      var nextTick = Instant(microsecondsSinceEpoch: 0)
      var listed = 0
      decoder = BeaconCaptureDecoder()
      start = cpuSeconds()
      feed(capture, to: &decoder) { ad in
        if machine == nil {
          machine = subscribed(to: uuids, at: ad.time)
          nextTick = ad.time.adding(seconds: 1)
        }
        if ad.time >= nextTick {
          listed += machine!.handle(.tick, at: nextTick).count
          nextTick = nextTick.adding(seconds: 1)
        }
        _ = machine!.handle(.heard(ad.sighting), at: ad.time)
      }
      fullSamples.append((cpuSeconds() - start) / Double(max(n, 1)))
      lists = listed
      tracked = machine?.trackedBeaconCount ?? 0
    }
    let decode = median(decodeSamples)
    let full = median(fullSamples)
    print("\(label) (\(ads) advertisements, \(tracked) beacons ranged, \(lists) outputs at ticks):")
    print("  decode            \(ns(decode)) ns CPU per advertisement")
    print("  decode + ranging  \(ns(full)) ns CPU per advertisement")
    print(
      "  10,000 advertisements/s cost \(percent(full * 10_000))% of one core (budget 5%); "
        + "one core would take \(Int(1 / full)) a second")
  }

  /// A machine with a ranging and a monitoring request (wildcard) for each UUID.
  static func subscribed(to uuids: [BeaconUUID], at t: Instant) -> BeaconMachine {
    var m = BeaconMachine()
    for (i, uuid) in uuids.enumerated() {
      let all = BeaconConstraint(uuid: uuid)!
      _ = m.handle(.subscribe(BeaconSubscriptionID(UInt64(2 * i)), .range(all)), at: t)
      _ = m.handle(
        .subscribe(BeaconSubscriptionID(UInt64(2 * i + 1)), .monitor(all, exitAfter: .seconds(30))), at: t)
    }
    return m
  }

  /// The HCI event packets (without H4 byte) of the captures' beacon advertisements, and
  /// their UUIDs.
  static func beaconEvents(_ captures: [[UInt8]]) -> ([[UInt8]], [BeaconUUID]) {
    var events: [[UInt8]] = []
    var uuids: Set<BeaconUUID> = []
    for capture in captures {
      var reader = BTSnoopReader()
      var parser = HCIAdvertisingParser()
      capture.withUnsafeBytes { all in
        reader.feed(all) { record, packet in
          guard record.packetType == .event else { return }
          var found = false
          var counts = BeaconCaptureDecoder.Counters()
          parser.parse(event: packet) { report, data in
            BeaconCaptureDecoder.beacons(in: data, report: report, time: record.time, counts: &counts) {
              found = true
              uuids.insert($0.payload.identity.uuid)
            }
          }
          if found { events.append(Array(packet)) }
        }
      }
    }
    return (events, uuids.sorted())
  }

  /// A btsnoop capture (H4) of `count` records cycling through `events`, 100 µs apart.
  static func synthesize(_ events: [[UInt8]], count: Int, transmitters: Int?) -> [UInt8] {
    var out: [UInt8] = Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xEA]
    let t0: UInt64 = 0x00E0_3AB4_4A67_6000 + 820_000_000_000_000  // 2026
    for i in 0..<count {
      // With `transmitters`, record i is transmitter i % transmitters: one of the real events
      // with its address (legacy report: code, length, subevent, count, type, address type,
      // address LSB first) rewritten, so there are exactly that many beacons.
      let k = transmitters.map { i % $0 } ?? i
      var event = events[k % events.count]
      if transmitters != nil, event.count > 11 {
        event.replaceSubrange(6..<12, with: [UInt8(k & 0xFF), UInt8(k >> 8), 0x5E, 0x1C, 0xB0, 0xC0])
      }
      let length = UInt32(event.count + 1)
      for v in [length, length, 3, 0] { out += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
      let t = t0 + UInt64(i) * 100
      out += [56, 48, 40, 32, 24, 16, 8, 0].map { UInt8(truncatingIfNeeded: t >> $0) }
      out.append(0x04)
      out += event
    }
    return out
  }

  private static func feed(
    _ input: [UInt8], to decoder: inout BeaconCaptureDecoder, _ body: (BeaconAdvertisement) -> Void
  ) {
    input.withUnsafeBytes { all in
      var offset = 0
      while offset < all.count {
        let end = min(offset + 65536, all.count)
        decoder.feed(UnsafeRawBufferPointer(rebasing: all[offset..<end]), body)
        offset = end
      }
    }
  }

  private static func cpuSeconds() -> Double {
    Double(Clocks.processCPUNanoseconds()) / 1e9
  }

  private static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

  private static func ns(_ seconds: Double) -> String { "\(Int((seconds * 1e9).rounded()))" }

  private static func percent(_ fraction: Double) -> String {
    let hundredths = Int((fraction * 10_000).rounded())
    let rest = hundredths % 100
    return "\(hundredths / 100).\(rest < 10 ? "0" : "")\(rest)"
  }
}
