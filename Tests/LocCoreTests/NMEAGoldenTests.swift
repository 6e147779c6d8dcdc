import Foundation
import LocCore
import Testing

/// locd's fixes against gpsd's own decoding of the same logs (the `.chk` files, gpsd's
/// regression output; see Tests/Fixtures/nmea/PROVENANCE.md).
///
/// gpsd reports a TPV after many sentences, several per receiver cycle, each with what it
/// knew so far. The record compared is the last TPV of each run of TPVs with the same
/// `time`; TPVs without a `time` (gpsd has not dated the stream yet) are grouped by the UTC
/// time of the sentence before them and matched to the locd fix with that time of day.
/// Records without a position are not compared. Compared: lat/lon within 1e-6°, time to the
/// millisecond, mode, altMSL (1e-3 m: gpsd prints four decimals), speed (1e-3 m/s) and track
/// (1e-3°) when gpsd has them. And the other way round: every fix with a position locd emits
/// must be an epoch gpsd reported a position for, or one of the listed exceptions.
@Suite struct NMEAGoldenTests {
  /// Every epoch where locd deliberately differs from gpsd, with the reason (also in docs/NMEA.md).
  static let deliberateDifferences: [String: String] = [
    "humminbird-M37.log 2006-09-16T19:41:02.000Z speed":
      "gpsd reported this second after its GLL, before the VTG that follows in the same second, with a "
      + "speed derived from two positions; locd waits for the cycle and takes the VTG's speed",
    "mtk-3301.log 2008-08-23T08:14:37.000Z mode": Self.threeSatellites,
    "mtk-3301.log 2008-08-23T08:14:38.000Z mode": Self.threeSatellites,
    "mtk-3301.log 2008-08-23T08:14:39.000Z mode": Self.threeSatellites,
    "telit-pls83-w.log tod 04:35:39.000 mode":
      "gpsd's last report of the first cycle, before it knew the date, follows the GAGGA (Galileo only, 1 "
      + "satellite); locd takes the combined GNGNS solution of the cycle (14 satellites, altitude): 3D",
    "haicom-305N.log tod 09:53:04.802 altMSL":
      "the GGA claims a fix from 0 satellites, so locd takes no position or altitude from it (gpsd keeps "
      + "its altitude); the position comes from the RMC",
  ]
  static let threeSatellites =
    "3 satellites in use (GGA and GSA) and GSA says 2D; gpsd calls it 3D because the GGA repeats a held "
    + "altitude, locd cannot: three satellites cannot give a 3D solution"

  /// Epochs where gpsd has a speed and locd has none: gpsd derives one from two consecutive
  /// positions when the receiver sent no RMC or VTG in the cycle; locd reports only what the
  /// receiver measured.
  static let derivedSpeeds: Set<String> = [
    "humminbird-M37.log 2006-09-16T19:41:08.000Z", "humminbird-M37.log 2006-09-16T19:41:12.000Z",
    "humminbird-M37.log 2006-09-16T19:41:14.000Z", "humminbird-M37.log 2006-09-16T19:41:16.000Z",
    "humminbird-M37.log 2006-09-16T19:41:18.000Z", "humminbird-M37.log 2006-09-16T19:41:20.000Z",
    "humminbird-M37.log 2006-09-16T19:41:24.000Z", "triton400.log 2013-04-01T03:01:30.000Z",
  ]

  /// Fixes locd emits for epochs gpsd reported no position for, each with the reason. Any
  /// other such fix would be an epoch locd made up.
  static let emittedOnlyByLocd: [String: String] = {
    var list = [
      "bt451.log 2009-12-09T15:25:08.500Z": Self.cutCapture,
      "bt451.log 2009-12-09T14:33:08.500Z": Self.cutCapture,
      "gp-320fw-2019-04-06-overflow.log 2019-04-06T23:57:26.020Z":
        "this second lacks the GLL that ends every other cycle; gpsd, waiting for it, never reported it; "
        + "locd emits the epoch (RMC, GGA, GSA) when the next second begins",
      "humminbird-M37.log 2006-09-16T19:41:03.000Z": Self.oneSentencePerSecond,
      "humminbird-M37.log 2006-09-16T19:41:04.000Z": Self.oneSentencePerSecond,
      "pharos-360.log 2006-07-28T02:16:33.948Z": Self.lastCycle,
      "quectel-l76k-nmea.log 2026-08-05T05:53:04.000Z": Self.lastCycle,
    ]
    // A Garmin in demo mode: RMC says V, GGA quality 8. gpsd reported its first cycle's
    // position and then none; locd decodes each, marked `simulated`, which acceptance drops.
    for second in stride(from: 52, through: 84, by: 2) {
      let m = 43 + second / 60
      let s = second % 60
      list["garmin-geko201.log 2005-06-14T21:\(m):\(s < 10 ? "0" : "")\(s).000Z"] = "simulated"
    }
    return list
  }()
  static let cutCapture =
    "the last cycle of a capture (RMC and GGA at .5 s), cut off by the next capture starting earlier: gpsd "
    + "never reported it; locd emits it when the time changes"
  static let oneSentencePerSecond =
    "one sentence type per second (RMC, then GGA with ZDA): gpsd reported neither second; locd emits each"
  static let lastCycle =
    "the log's last cycle, cut off: locd emits the pending epoch at the end of the input; gpsd did not"

  /// One gpsd epoch: its key ("2019-...Z" or "tod hh:mm:ss.sss") and last TPV.
  struct Expected {
    var key: String
    var tpv: GpsdMessage.TPV
  }

  static func todText(_ t: TimeOfDay) -> String {
    let ms = t.microsecondsSinceMidnight / 1000
    func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
    let frac = ms % 1000
    return "\(two(ms / 3_600_000)):\(two(ms / 60_000 % 60)):\(two(ms / 1000 % 60))."
      + (frac < 10 ? "00\(frac)" : frac < 100 ? "0\(frac)" : "\(frac)")
  }

  static func timeOfDay(_ t: Instant) -> TimeOfDay {
    TimeOfDay(
      microsecondsSinceMidnight: t.microsecondsSinceEpoch - Int64(t.utcDate.daysSinceEpoch)
        * TimeOfDay.microsecondsPerDay)!
  }

  /// gpsd's epochs of `log` (see above), and the keys of every epoch for which gpsd reported a
  /// position in any of its TPVs (its last may have lost it, as after a receiver restart).
  static func expectedEpochs(_ log: String) throws -> (epochs: [Expected], withPosition: Set<String>) {
    var epochs: [Expected] = []
    var withPosition: Set<String> = []
    var sentenceTime: TimeOfDay?
    // Split bytes, not Characters: "\r\n" is one Character in Swift.
    for slice in NMEAFixtures.bytes(log + ".chk").split(whereSeparator: { $0 == 10 || $0 == 13 }) {
      let bytes = Array(slice)
      let line = String(decoding: bytes, as: UTF8.self)
      if line.hasPrefix("$") {
        if let t = bytes.withUnsafeBytes({ NMEASentence.timeOfDay($0) }) { sentenceTime = t.time }
      } else if line.hasPrefix("{\"class\":\"TPV\"") {
        guard case .tpv(let tpv) = try GpsdMessage.parse(bytes) else { continue }
        let key: String
        if let time = tpv.time {
          key = time.iso8601(fractionDigits: 3)
        } else if let sentenceTime {
          key = "tod " + todText(sentenceTime)
        } else {
          continue
        }
        if tpv.latitude != nil { withPosition.insert(key) }
        if let last = epochs.last, last.key == key {
          epochs[epochs.count - 1].tpv = tpv
        } else {
          epochs.append(Expected(key: key, tpv: tpv))
        }
      }
    }
    return (epochs.filter { $0.tpv.latitude != nil }, withPosition)
  }

  @Test func fixesMatchGpsd() throws {
    var total = 0
    var matched = 0
    var differences: [String] = []
    var speedsMissing: Set<String> = []
    var tracksMissing: Set<String> = []
    var tracksCompared = 0
    var extra: [String] = []
    for log in NMEAFixtures.logs {
      let fixes = NMEAFixtures.decode(NMEAFixtures.bytes(log)).fixes
      var byKey: [String: [Fix]] = [:]
      for fix in fixes {
        byKey[fix.time.iso8601(fractionDigits: 3), default: []].append(fix)
        byKey["tod " + Self.todText(Self.timeOfDay(fix.time)), default: []].append(fix)
      }
      let (expectedEpochs, gpsdKeys) = try Self.expectedEpochs(log)
      // Every fix with a position that locd emits must be one gpsd reported a position for
      // too (by time, or by time of day before gpsd knew the date): locd invents no epochs.
      for fix in fixes where fix.coordinate != nil {
        let key = fix.time.iso8601(fractionDigits: 3)
        if !gpsdKeys.contains(key), !gpsdKeys.contains("tod " + Self.todText(Self.timeOfDay(fix.time))) {
          extra.append("\(log) \(key)")
        }
      }
      for expected in expectedEpochs {
        total += 1
        let id = "\(log) \(expected.key)"
        guard var candidates = byKey[expected.key], !candidates.isEmpty else {
          differences.append("\(id) missing")
          continue
        }
        // Logs that go back in time have the same time twice: take them in order.
        let fix = candidates.removeFirst()
        byKey[expected.key] = candidates
        let tpv = expected.tpv
        var problems: [String] = []
        if let c = fix.coordinate, let lat = tpv.latitude, let lon = tpv.longitude {
          if abs(c.latitude.value - lat.value) > 1e-6 || abs(c.longitude.value - lon.value) > 1e-6 {
            problems.append("position")
          }
        } else {
          problems.append("position")
        }
        if fix.mode != tpv.mode { problems.append("mode") }
        if let alt = tpv.altitudeMSL, fix.altitudeMSL.map({ abs($0.value - alt.value) > 1e-3 }) ?? true {
          problems.append("altMSL")
        }
        if let track = tpv.track {
          tracksCompared += 1
          if let mine = fix.course {
            if abs(mine.value - track.value) > 1e-3 { problems.append("track") }
          } else {
            tracksMissing.insert(id)
          }
        }
        if let speed = tpv.speed {
          if let mine = fix.speed {
            if abs(mine.value - speed.value) > 1e-3 { problems.append("speed") }
          } else {
            speedsMissing.insert(id)
          }
        }
        if problems.isEmpty {
          matched += 1
        } else {
          differences += problems.map { "\(id) \($0)" }
        }
      }
    }
    #expect(total > 550)
    #expect(Set(differences) == Set(Self.deliberateDifferences.keys), "unexpected: \(differences)")
    #expect(speedsMissing == Self.derivedSpeeds)
    print("nmea golden: \(matched) of \(total) gpsd epochs match, \(tracksCompared) tracks compared")
    #expect(tracksCompared > 200, "most moving fixtures have a course")
    #expect(tracksMissing == [], "gpsd has a track, locd none: \(tracksMissing.sorted())")
    #expect(Set(extra) == Set(Self.emittedOnlyByLocd.keys), "fixes gpsd did not report: \(extra)")
    #expect(Double(matched) >= 0.99 * Double(total), "matched \(matched) of \(total)")
  }
}
