import LocCore
import LocProtocol
import LocSystem

#if canImport(Glibc)
  import Glibc
#endif

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
    var decoder = NMEADecoder(gpsdJSON: true)
    let emit: (Fix) -> Void = { fix in
      Output.write(json ? jsonLine(fix) : textLine(fix))
      Output.append(0x0A)
    }
    do {
      try FileIO.forEachChunk(of: input) { chunk in
        decoder.feed(chunk, emit)
        // Written per chunk, so a live stream (gpspipe -r | locctl decode -) shows each fix
        // as its epoch completes.
        Output.flush()
      }
    } catch {
      Output.flush()
      printError("locctl decode: cannot read \(path): \(error)")
      return ExitStatus.failure
    }
    decoder.finish(emit)
    Output.flush()
    printError("decode: \(decoder.counters)")
    return ExitStatus.ok
  }

  /// One object with gpsd's TPV names for what gpsd's TPV holds too; absent values are left
  /// out, as gpsd does. The horizontal accuracy is locd's 68 % radius, so it is `accuracy`, not
  /// gpsd's 95 % `eph`; `hdop` is the receiver's.
  static func jsonLine(_ fix: Fix) -> String {
    var o = JSONObject()
    o["class"] = .string("TPV")
    o["time"] = .string(fix.time.iso8601(fractionDigits: 3))
    o["mode"] = .int(fix.mode.rawValue)
    // Degrees as the daemon's fix objects carry them (the JSON writer's 15 significant
    // digits, so a fix decoded here equals the one locd pushes); metres and m/s to 3 decimals
    // and the track to 4, as gpsd prints them, without the binary noise of 13.600000000000001.
    if let c = fix.coordinate {
      o["lat"] = .number(c.latitude.value)
      o["lon"] = .number(c.longitude.value)
    }
    if let a = fix.altitudeMSL { o["altMSL"] = .number(WireFormat.round(a.value, 3)) }
    if let g = fix.geoidSeparation { o["geoidSep"] = .number(WireFormat.round(g.value, 3)) }
    if let s = fix.speed { o["speed"] = .number(WireFormat.round(s.value, 3)) }
    if let t = fix.course { o["track"] = .number(WireFormat.round(t.value, 4)) }
    if let a = fix.horizontalAccuracy { o["accuracy"] = .number(WireFormat.round(a.value, 3)) }
    if let h = fix.hdop { o["hdop"] = .number(WireFormat.round(h, 2)) }
    if let q = fix.quality { o["quality"] = .string(q.rawValue) }
    if let u = fix.satellitesUsed { o["satellitesUsed"] = .int(u) }
    if fix.dateSuspect { o["dateSuspect"] = .bool(true) }
    return JSON.object(o).serialized
  }

  /// `2019-04-12T00:39:56.000Z 3D -45.877567 170.500111 alt 14.2m 0.013m/s 0.0° ±4.2m gps 12sat`;
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
    s += " " + (fix.speed.map { fixed($0.value, 3) + "m/s" } ?? "-")
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
