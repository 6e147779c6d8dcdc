import Foundation
import Testing

@Suite struct LocctlDecodeTests {
  static let log = Binaries.fixture("nmea/bu353s4.log")

  @Test func decodesAFileOneLinePerFix() throws {
    let r = try run(Binaries.locctl, ["decode", Self.log.path])
    #expect(r.status == 0)
    let lines = r.stdout.split(separator: "\n")
    #expect(lines.count == 25)
    // The first cycle of the log: $GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08,1.1,59.9,...
    // and $GPRMC with 0.69 kn over 181.39°; the accuracy is the 68 % radius from HDOP 1.1
    // (see jsonNamesWhatItHolds): 5.87 m.
    #expect(
      lines.first
        == "2014-12-31T03:07:19.000Z 3D -37.7847883 175.3148967 alt 59.9m 1.3km/h 181.4° ±5.9m gps 8sat")
    #expect(r.stderr == "decode: sentences 90, fixes 25, bad checksums 0, skipped 0, errors 0, comments 6\n")
  }

  @Test func jsonNamesWhatItHolds() throws {
    let r = try run(Binaries.locctl, ["decode", "--json", Self.log.path])
    #expect(r.status == 0)
    let objects = try r.stdout.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    #expect(objects.count == 25)
    let first = try #require(objects.first)
    #expect(first["class"] as? String == "TPV")
    #expect(first["time"] as? String == "2014-12-31T03:07:19.000Z")
    #expect(first["mode"] as? Int == 3)
    #expect(abs((first["lat"] as? Double ?? 0) - -37.784788333) < 1e-6)
    #expect(abs((first["lon"] as? Double ?? 0) - 175.314896667) < 1e-6)
    #expect(first["altMSL"] as? Double == 59.9)
    // Rounded as gpsd rounds its TPV: speed to 1 mm/s, accuracy to 1 mm.
    #expect(abs((first["speed"] as? Double ?? 0) - 0.69 * 1852 / 3600) <= 0.0005)
    #expect(first["track"] as? Double == 181.39)
    // The log's GSA and GGA give HDOP 1.1 and no GST. HDOP × UERE (5 m, one sigma: the
    // constant docs/NMEA.md gives) is the distance RMS, σ√2 for a circular error of σ per
    // axis; locd's accuracy is the 68 % radius, σ·√(−2 ln 0.32). gpsd's own report for this
    // second (bu353s4.log.chk) says eph 20.9: a 95 % radius from its 19 m per unit of HDOP.
    // So locd writes `accuracy`, and never puts its figure under gpsd's name `eph`.
    let accuracy = try #require(first["accuracy"] as? Double)
    #expect(abs(accuracy - 1.1 * 5 / 2.0.squareRoot() * (-2 * Foundation.log(0.32)).squareRoot()) <= 0.0005)
    #expect(first["eph"] == nil)
    #expect(first["hdop"] as? Double == 1.1)
    #expect(first["quality"] as? String == "gps")
    #expect(first["satellitesUsed"] as? Int == 8)
  }

  @Test func standardInputGivesTheSameAsTheFile() throws {
    let text = try String(contentsOf: Self.log, encoding: .utf8)
    let piped = try run(Binaries.locctl, ["decode", "-"], stdin: text)
    let file = try run(Binaries.locctl, ["decode", Self.log.path])
    #expect(piped.status == 0)
    #expect(piped.stdout == file.stdout)
    #expect(piped.stderr == file.stderr)
  }

  @Test func standardInputIsDecodedAsItArrives() throws {
    // Write the first cycles and wait for a fix to come out while stdin is still open: a
    // decoder that read all of stdin first would print nothing until EOF.
    let process = Process()
    process.executableURL = Binaries.locctl
    process.arguments = ["decode", "-"]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let lines = try String(contentsOf: Self.log, encoding: .utf8).split(whereSeparator: \.isNewline)
    let head = lines.filter { $0.hasPrefix("$") }.prefix(12).joined(separator: "\r\n") + "\r\n"
    input.fileHandleForWriting.write(Data(head.utf8))
    let seen = DispatchSemaphore(value: 0)
    let received = LockedText()
    DispatchQueue.global().async {
      while true {
        let data = output.fileHandleForReading.availableData
        if data.isEmpty { break }
        received.append(String(decoding: data, as: UTF8.self))
        if received.value.contains("\n") { seen.signal() }
      }
    }
    // A generous bound, only so that a broken build fails instead of hanging.
    let arrived = seen.wait(timeout: .now() + 30) == .success
    try input.fileHandleForWriting.close()
    process.waitUntilExit()
    #expect(arrived)
    #expect(received.value.hasPrefix("2014-12-31T03:07:19.000Z 3D"))
  }

  /// A file with bytes but not one sentence (here a Bluetooth capture) is an error, exit 1,
  /// after the counters; a log with junk between its sentences is not.
  @Test func aBinaryFileIsAnErrorNotAnEmptyLog() throws {
    let capture = try #require(
      try FileManager.default.contentsOfDirectory(atPath: Binaries.fixture("beacons").path)
        .first { $0.hasSuffix(".btsnoop") })
    let path = Binaries.fixture("beacons/\(capture)").path
    let r = try run(Binaries.locctl, ["decode", path])
    #expect(r.status == 1, "\(r.stderr)")
    #expect(r.stdout.isEmpty)
    let lines = r.stderr.split(separator: "\n")
    #expect(lines.count == 2, "\(r.stderr)")
    #expect(lines.first?.hasPrefix("decode: sentences 0, fixes 0") == true, "\(r.stderr)")
    #expect(
      lines.last
        == "locctl decode: \(path) holds no NMEA 0183 sentence and no gpsd JSON that decodes; is it a binary log, or a receiver speaking a binary protocol (UBX, SiRF)?"
    )
    let junked = try run(
      Binaries.locctl, ["decode", "-"],
      stdin: "\u{1}\u{2}garbage\n" + (try String(contentsOf: Self.log, encoding: .utf8)))
    #expect(junked.status == 0, "\(junked.stderr)")
    #expect(junked.stdout.split(separator: "\n").count == 25)
    let empty = try run(Binaries.locctl, ["decode", "/dev/null"])
    #expect(empty.status == 0, "\(empty.stderr)")
  }

  @Test func errorsAreOneClearLine() throws {
    let missing = try run(Binaries.locctl, ["decode", "/nonexistent/x.log"])
    #expect(missing.status == 1)
    #expect(missing.stderr.hasPrefix("locctl decode: cannot open /nonexistent/x.log: open: No such file"))
    let usage = try run(Binaries.locctl, ["decode"])
    #expect(usage.status == 2)
    #expect(usage.stderr.hasPrefix("locctl decode:"))
    #expect(try run(Binaries.locctl, ["decode", "--frobnicate", "x"]).status == 2)
  }
}

/// Text appended from one thread and read from another.
final class LockedText: @unchecked Sendable {
  private let lock = NSLock()
  private var text = ""
  func append(_ more: String) { lock.withLock { text += more } }
  var value: String { lock.withLock { text } }
}
