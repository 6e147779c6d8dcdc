import LocCore
import LocSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `locctl decode [--json] FILE|-`: decodes an NMEA log or stream (or gpsd JSON) without a
/// daemon and prints one line per fix, then a summary of the counters on stderr.
enum DecodeCommand: LocctlCommand {
  static let name = "decode"
  static let summary = "decode an NMEA log or stream (FILE or - for stdin) into fixes"

  static func run(_ arguments: [String], socket: String) -> Int32 {
    let options: CommandLineOptions
    do {
      options = try CommandLineOptions(arguments, valued: [], flagNames: ["json", "help"])
    } catch {
      printError("locctl: decode: \(error)")
      return ExitStatus.usage
    }
    if options.flag("help") {
      print("usage: locctl decode [--json] FILE|-")
      return ExitStatus.ok
    }
    guard options.positionals.count == 1, let path = options.positionals.first else {
      printError(
        "locctl: decode: expected one FILE, or - for standard input; usage: locctl decode [--json] FILE|-")
      return ExitStatus.usage
    }
    let input: FileDescriptor
    do { input = try FileIO.openInput(path) } catch {
      printError("locctl: decode: cannot open \(path): \(error)")
      return ExitStatus.failure
    }

    let json = options.flag("json")
    var decoder = NMEADecoder(gpsdJSON: true)
    var out = ""
    out.reserveCapacity(1 << 16)
    let emit: (Fix) -> Void = { fix in
      out += json ? jsonLine(fix) : textLine(fix)
      out += "\n"
    }
    do {
      try FileIO.forEachChunk(of: input) { chunk in
        decoder.feed(chunk, emit)
        // Written per chunk, so a live stream (gpspipe -r | locctl decode -) shows each fix
        // as its epoch completes.
        flush(&out)
      }
    } catch {
      printError("locctl: decode: cannot read \(path): \(error)")
      return ExitStatus.failure
    }
    decoder.finish(emit)
    flush(&out)
    printError("decode: \(decoder.counters)")
    return ExitStatus.ok
  }

  private static func flush(_ out: inout String) {
    guard !out.isEmpty else { return }
    StandardStreams.writeOutput(out)
    StandardStreams.flushOutput()
    out.removeAll(keepingCapacity: true)
  }

  /// One object with gpsd's TPV names for what gpsd's TPV holds too; absent values are left
  /// out, as gpsd does. The horizontal accuracy is locd's 68 % radius, so it is `accuracy`, not
  /// gpsd's 95 % `eph`; `hdop` is the receiver's.
  static func jsonLine(_ fix: Fix) -> String {
    var o = JSONObject()
    o["class"] = .string("TPV")
    o["time"] = .string(fix.time.iso8601(fractionDigits: 3))
    o["mode"] = .int(fix.mode.rawValue)
    if let c = fix.coordinate {
      o["lat"] = .number(c.latitude.value)
      o["lon"] = .number(c.longitude.value)
    }
    if let a = fix.altitudeMSL { o["altMSL"] = .number(a.value) }
    if let g = fix.geoidSeparation { o["geoidSep"] = .number(g.value) }
    if let s = fix.speed { o["speed"] = .number(s.value) }
    if let t = fix.course { o["track"] = .number(t.value) }
    if let a = fix.horizontalAccuracy { o["accuracy"] = .number(a.value) }
    if let h = fix.hdop { o["hdop"] = .number(h) }
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
  static func fixed(_ value: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9e15 else { return "\(value)" }
    let whole = Int64(scaled)
    let unit = Int64(scale)
    var text = value < 0 && whole != 0 ? "-" : ""
    text += String(whole / unit)
    if digits > 0 {
      let frac = String(whole % unit)
      text += "." + String(repeating: "0", count: digits - frac.count) + frac
    }
    return text
  }
}
