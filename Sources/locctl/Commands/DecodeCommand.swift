import LocCore
import LocHost
import LocProtocol

/// `locctl decode [--json] FILE|-`: decodes an NMEA log or stream (or gpsd JSON) without a
/// daemon and prints one line per fix, then a summary of the counters on stderr.
enum DecodeCommand {
  static let spec = CommandSpec(
    name: "decode", summary: "decode an NMEA log or stream (FILE or - for stdin) into fixes (offline)",
    usage: ["decode [--json] FILE|-"], arguments: [.wordsOrFile(["-"])],
    help: """
      Decodes an NMEA 0183 log or live stream (also gpsd JSON) as locd does, one line per fix, and
      prints a summary of the counters (sentences, bad checksums, junk, ...) on standard error.
      --json: one object per fix with gpsd's TPV names where gpsd has them (time, mode, lat, lon,
      altMSL, speed, track), locd's accuracy (the 68 % radius, not gpsd's eph), hdop, quality and
      satellitesUsed. A live stream is printed as each epoch completes.
      """,
    examples: ["locctl decode --json drive.nmea", "gpspipe -r | locctl decode -"],
    needsDaemon: false, run: run)

  static func run(_ invocation: Invocation) throws(UsageError) -> Int32 {
    guard invocation.positionals.count == 1, let path = invocation.positionals.first else {
      throw UsageError("expected one FILE, or - for standard input")
    }
    let input: FileDescriptor
    do { input = try FileIO.openInput(path) } catch {
      printError("locctl decode: cannot open \(path): \(error)")
      return ExitStatus.failure
    }
    let json = invocation.json
    // Fixes only: the satellites are not printed, so not assembled.
    var decoder = NMEADecoder(gpsdJSON: true, skies: false)
    // The lines go into a buffer of the command's own, one write per chunk read; the closures
    // are literals so that the buffer is not boxed.
    var out = ByteText()
    do {
      try FileIO.forEachChunk(of: input, chunkSize: 1 << 18) { chunk in
        decoder.feed(chunk) { fix in write(fix, json: json, to: &out) }
        // Written per chunk, so a live stream (gpspipe -r | locctl decode -) shows each fix
        // as its epoch completes (a read returns what has arrived, not a full chunk).
        out.flush()
      }
    } catch {
      out.flush()
      Output.flush()
      printError("locctl decode: cannot read \(path): \(error)")
      return ExitStatus.failure
    }
    decoder.finish { fix in write(fix, json: json, to: &out) }
    out.flush()
    Output.flush()
    let counters = decoder.counters
    printError("decode: \(counters)")
    // Bytes but not one sentence or report decoded: not a log this reads (a binary file, a
    // receiver's binary protocol, the wrong file). Random bytes make the odd `$...*hh` line
    // with a bad checksum or field; junk between good sentences is normal.
    let read = counters.lines + counters.junkBytes + counters.truncatedLines
    if read > 0, counters.sentences + counters.gpsdReports + counters.skipped == 0 {
      printError(
        "locctl decode: \(path == "-" ? "standard input" : path) holds no NMEA 0183 sentence and no gpsd JSON that decodes; is it a binary log, or a receiver speaking a binary protocol (UBX, SiRF)?"
      )
      return ExitStatus.failure
    }
    return ExitStatus.ok
  }

  /// One line for `fix`.
  static func write(_ fix: Fix, json: Bool, to out: inout ByteText) {
    if json {
      writeJSON(fix, to: &out)
    } else {
      out.bytes.append(contentsOf: textLine(fix).utf8)
    }
    out.append(0x0A)
  }

  /// One object with gpsd's TPV names for what gpsd's TPV holds too; absent values are left
  /// out, as gpsd does. The horizontal accuracy is locd's 68 % radius, so it is `accuracy`, not
  /// gpsd's 95 % `eph`; `hdop` is the receiver's. Written member by member into `out`: the
  /// bytes are those of the JSON writer for the same object (LocctlDecodeTests).
  static func writeJSON(_ fix: Fix, to out: inout ByteText) {
    out.append("{\"class\":\"TPV\",\"time\":\"")
    out.append(iso8601: fix.time, fractionDigits: 3)
    out.append("\",\"mode\":")
    out.append(integer: fix.mode.rawValue)
    // Degrees as the daemon's fix objects carry them (the JSON writer's 15 significant
    // digits, so a fix decoded here equals the one locd pushes); metres and m/s to 3 decimals
    // and the track to 4, as gpsd prints them, without the binary noise of 13.600000000000001.
    if let c = fix.coordinate {
      out.append(",\"lat\":")
      out.append(json: .number(c.latitude.value))
      out.append(",\"lon\":")
      out.append(json: .number(c.longitude.value))
    }
    out.append(",\"altMSL\":", fix.altitudeMSL?.value, decimals: 3)
    out.append(",\"geoidSep\":", fix.geoidSeparation?.value, decimals: 3)
    out.append(",\"speed\":", fix.speed?.value, decimals: 3)
    out.append(",\"track\":", fix.course?.value, decimals: 4)
    out.append(",\"accuracy\":", fix.horizontalAccuracy?.value, decimals: 3)
    out.append(",\"hdop\":", fix.hdop, decimals: 2)
    if let q = fix.quality {
      out.append(",\"quality\":")
      out.append(json: .string(q.rawValue))
    }
    if let u = fix.satellitesUsed {
      out.append(",\"satellitesUsed\":")
      out.append(integer: u)
    }
    if fix.dateSuspect { out.append(",\"dateSuspect\":true") }
    out.append(0x7D)
  }

  /// `2019-04-12T00:39:56.000Z 3D -45.877567 170.500111 alt 14.2m 0.0km/h 0.0° ±4.2m gps 12sat`;
  /// missing values are `-`.
  static func textLine(_ fix: Fix) -> String {
    var s = fix.time.iso8601(fractionDigits: 3)
    switch fix.mode {
    case .noFix: s += " nofix"
    case .twoD: s += " 2D"
    case .threeD: s += " 3D"
    }
    if let c = fix.coordinate {
      s += " " + fixed(c.latitude.value, 7) + " " + fixed(c.longitude.value, 7)
    } else {
      s += " - -"
    }
    s += " alt " + (fix.altitudeMSL.map { fixed($0.value, 1) + "m" } ?? "-")
    // The unit of status and watch (Measures), written without its space like the others here.
    s += " " + (fix.speed.map { Measures.speed($0).filter { $0 != " " } } ?? "-")
    s += " " + (fix.course.map { fixed($0.value, 1) + "°" } ?? "-")
    s += " " + (fix.horizontalAccuracy.map { "±" + fixed($0.value, 1) + "m" } ?? "-")
    s += " " + (fix.quality?.rawValue ?? "-")
    s += " " + (fix.satellitesUsed.map { "\($0)sat" } ?? "-")
    if fix.dateSuspect { s += " date-suspect" }
    return s
  }

  /// `value` with `digits` decimals, rounded half away from zero.
  static func fixed(_ value: Double, _ digits: Int) -> String { Numbers.fixed(value, digits) }

}
