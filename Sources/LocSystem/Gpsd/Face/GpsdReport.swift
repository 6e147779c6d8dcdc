import LocCore

/// The reports of gpsd's JSON protocol that locd sends (gpsd_json(5)): each a JSON object on
/// one line, `class` first. Missing values are left out, as gpsd leaves them out.
enum GpsdReport {
  /// The protocol version locd speaks: gpsd 3.22's (gpsd_json(5), "VERSION"), which libgps
  /// and the python client of Debian 12 accept.
  static let protocolMajor = 3
  /// The minor version.
  static let protocolMinor = 14

  /// What ends each report: CR LF, as gpsd sends them (python3-gps reads a line as a report
  /// only when it ends so).
  static let end = "\r\n"

  /// The gpsd release whose protocol locd speaks, as `VERSION`'s `release` names it: cgps
  /// (gpsd 3.22) warns "gpsd release ..., expected 3.22" when the release is another string.
  static let gpsdRelease = "3.22"

  /// `VERSION`, sent on connect and for `?VERSION`: gpsd's members, `release` the gpsd release
  /// whose protocol locd speaks, `rev` locd's own release (`locd VERSION`).
  static func version(release: String) -> String {
    line([
      "class": .string("VERSION"), "release": .string(gpsdRelease), "rev": .string(release),
      "proto_major": .int(protocolMajor), "proto_minor": .int(protocolMinor),
    ])
  }

  /// `ERROR` with `message`.
  static func error(_ message: String) -> String {
    line(["class": .string("ERROR"), "message": .string(message)])
  }

  /// `DEVICES`: one `DEVICE` object a source.
  static func devices(_ list: [GpsdDevice]) -> String {
    var o: JSONObject = ["class": .string("DEVICES")]
    o["devices"] = .array(list.map { .object(device($0)) })
    return JSON.object(o).serialized
  }

  /// One `DEVICE` object.
  static func device(_ d: GpsdDevice) -> JSONObject {
    var o: JSONObject = ["class": .string("DEVICE"), "path": .string(d.path), "driver": .string(d.driver)]
    if let activated = d.activated { o["activated"] = .string(activated.iso8601(fractionDigits: 3)) }
    // gpsd_json(5): flags 1 means "seen GPS data".
    o["flags"] = .int(d.seenData ? 1 : 0)
    // The line's settings, for a serial line whose speed locd knows (gpsd sends them for a
    // tty, none for a network device); `native` 0: NMEA, the receiver's binary mode unused.
    if let line = d.line {
      o["native"] = .int(0)
      o["bps"] = .int(line.bitsPerSecond)
      o["parity"] = .string("N")
      o["stopbits"] = .int(1)
      let c = line.cycle.components
      o["cycle"] = .number(Double(c.seconds) + Double(c.attoseconds) / 1e18)
    }
    return o
  }

  /// `WATCH`: the client's watch policy after a `?WATCH`.
  static func watch(_ w: GpsdWatch) -> String {
    var o: JSONObject = [
      "class": .string("WATCH"), "enable": .bool(w.enabled), "json": .bool(w.json), "nmea": .bool(w.nmea),
      "raw": .int(w.raw), "scaled": .bool(false), "timing": .bool(false), "split24": .bool(false),
      "pps": .bool(false),
    ]
    if let device = w.device { o["device"] = .string(device) }
    return JSON.object(o).serialized
  }

  /// `TPV` from a fix (the full report).
  static func tpv(_ fix: Fix, device: String, climb: Double?) -> JSONObject {
    var o: JSONObject = ["class": .string("TPV"), "device": .string(device)]
    o["mode"] = .int(fix.mode.rawValue)
    o["time"] = .string(fix.time.iso8601(fractionDigits: 3))
    if let c = fix.coordinate {
      o["lat"] = .number(c.latitude.value)
      o["lon"] = .number(c.longitude.value)
    }
    if fix.mode == .threeD, let msl = fix.altitudeMSL {
      if let sep = fix.geoidSeparation { o["altHAE"] = .number(rounded(msl.value + sep.value, 4)) }
      o["altMSL"] = .number(msl.value)
      o["alt"] = .number(msl.value)
    }
    if let eph = GpsdErrorEstimate.eph(fix) { o["eph"] = .number(rounded(eph, 3)) }
    if let epv = GpsdErrorEstimate.epv(fix) { o["epv"] = .number(rounded(epv, 3)) }
    if let track = fix.course { o["track"] = .number(track.value) }
    if let speed = fix.speed { o["speed"] = .number(rounded(speed.value, 3)) }
    if let climb { o["climb"] = .number(rounded(climb, 3)) }
    if let sep = fix.geoidSeparation { o["geoidSep"] = .number(sep.value) }
    return o
  }

  /// `TPV` for a client with reduced accuracy: the snapped position and its accuracy, 2D, and
  /// nothing that would sharpen it (altitude, speed, track).
  static func reducedTPV(_ position: Position, device: String) -> JSONObject {
    var o: JSONObject = ["class": .string("TPV"), "device": .string(device), "mode": .int(2)]
    o["time"] = .string(position.time.iso8601(fractionDigits: 3))
    o["lat"] = .number(position.coordinate.latitude.value)
    o["lon"] = .number(position.coordinate.longitude.value)
    // The cell's accuracy, at 95 %: no DOPs that would tell of the receiver.
    if let a = position.accuracy { o["eph"] = .number(rounded(a.value * GpsdErrorEstimate.eph95Per68, 3)) }
    return o
  }

  /// `TPV` with mode 1: no fix (what a cached, manual or missing position is to a gpsd client).
  static func noFix(device: String, time: Instant?) -> JSONObject {
    var o: JSONObject = ["class": .string("TPV"), "device": .string(device), "mode": .int(1)]
    if let time { o["time"] = .string(time.iso8601(fractionDigits: 3)) }
    return o
  }

  /// `SKY` from a source's satellites, the DOPs of `dops` (its latest fix) and the cycle's
  /// `time` when it is known.
  static func sky(_ sky: SourceSky, dops fix: Fix?, time: Instant?) -> JSONObject {
    var o: JSONObject = ["class": .string("SKY"), "device": .string(sky.source)]
    if let time { o["time"] = .string(time.iso8601(fractionDigits: 3)) }
    // gpsd's order and decimals; the DOPs the receiver did not send, worked out from the
    // satellites used as gpsd does (`GpsdDilution`).
    let d = GpsdDilution(sky.sky)
    let dops: [(String, Double?)] = [
      ("xdop", d?.x), ("ydop", d?.y), ("vdop", fix?.vdop ?? d?.vertical), ("tdop", d?.time),
      ("hdop", fix?.hdop ?? d?.horizontal), ("gdop", d?.geometric), ("pdop", fix?.pdop ?? d?.position),
    ]
    for case (let key, let value?) in dops { o[key] = .number(rounded(value, 2)) }
    let summary = sky.sky.summary
    o["nSat"] = .int(summary.inView)
    o["uSat"] = .int(summary.used)
    o["satellites"] = .array(
      sky.sky.satellites.map { s in
        var e: JSONObject = ["PRN": .int(s.prn)]
        if let el = s.elevation { e["el"] = .number(el) }
        if let az = s.azimuth { e["az"] = .number(az) }
        // gpsd writes 0 for a satellite it does not hear (gpsd 3.22, gpspipe -w); its clients
        // (cgps, xgps) read it so.
        e["ss"] = .number(s.signal ?? 0)
        e["used"] = .bool(s.used)
        e["gnssid"] = .int(s.constellation.rawValue)
        e["svid"] = .int(s.svid)
        if let sig = s.signalID { e["sigid"] = .int(sig) }
        return .object(e)
      })
    return o
  }

  /// `POLL`: the client's last TPV and SKY.
  static func poll(time: Instant, active: Int, tpv: JSONObject?, sky: JSONObject?) -> String {
    var o: JSONObject = ["class": .string("POLL"), "time": .string(time.iso8601(fractionDigits: 3))]
    o["active"] = .int(active)
    o["tpv"] = .array(tpv.map { [.object($0)] } ?? [])
    o["gst"] = .array([])
    o["sky"] = .array(sky.map { [.object($0)] } ?? [])
    return JSON.object(o).serialized
  }

  static func line(_ o: JSONObject) -> String { JSON.object(o).serialized }

  /// `value` rounded to `decimals` places (the figures gpsd prints).
  static func rounded(_ value: Double, _ decimals: Int) -> Double {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    return (value * scale).rounded() / scale
  }
}

/// A device as `DEVICES` names it: one of locd's sources.
struct GpsdDevice: Sendable, Equatable {
  /// The source's URI.
  var path: String
  /// What kind of source (`NMEA0183`, `gpsd`, `replay`).
  var driver: String
  /// When it last connected, if it is connected.
  var activated: Instant?
  /// Whether it has sent data.
  var seenData: Bool
  /// The serial line it reads, when locd knows its speed.
  var line: SerialLine? = nil

  /// A serial line as gpsd reports it: 8 data bits, no parity, 1 stop bit (how `SerialPort`
  /// sets every line), at a known speed.
  struct SerialLine: Sendable, Equatable {
    var bitsPerSecond: Int
    /// The receiver's cycle: gpsd's NMEA0183 driver reports 1 s (its default cycle) for an
    /// NMEA receiver, and so does locd.
    var cycle = Duration.seconds(1)
  }
}

/// A client's watch policy (gpsd_json(5), "?WATCH").
struct GpsdWatch: Sendable, Equatable {
  /// Reports are streamed.
  var enabled = false
  /// As JSON (TPV, SKY).
  var json = false
  /// As NMEA sentences.
  var nmea = false
  /// `raw` as asked (0, 1, 2).
  var raw = 0
  /// Only this device.
  var device: String? = nil

  /// Applies a `?WATCH={...}`: enabling without saying how means JSON (gpsd does the same).
  mutating func apply(_ change: GpsdWatchChange) {
    if let e = change.enable { enabled = e }
    if let j = change.json { json = j }
    if let n = change.nmea { nmea = n }
    if let r = change.raw { raw = r }
    if let d = change.device { device = d.isEmpty ? nil : d }
    if change.enable == true, change.json == nil, change.nmea == nil, change.raw == nil, !nmea, raw == 0 {
      json = true
    }
  }

  /// Whether sentences are wanted.
  var wantsSentences: Bool { enabled && (nmea || raw > 0) }
  /// Whether JSON reports are wanted.
  var wantsJSON: Bool { enabled && json }
}
