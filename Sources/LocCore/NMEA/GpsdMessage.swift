/// One report from gpsd's JSON protocol (gpsd_json(5)), decoded from one line. Every field
/// may be absent — gpsd leaves out what it does not know — so every field is optional.
public enum GpsdMessage: Hashable, Sendable {
  /// `VERSION`: the greeting gpsd sends on connect.
  case version(Version)
  /// `DEVICES`: the receivers gpsd knows.
  case devices([Device])
  /// `WATCH`: the watch policy now in force (the answer to `?WATCH=`).
  case watch(Watch)
  /// `TPV`: time, position, velocity.
  case tpv(TPV)
  /// `SKY`: satellites and DOPs.
  case sky(SKY)
  /// `ERROR`: gpsd rejected a command.
  case error(message: String?)
  /// Any other class (`DEVICE`, `PPS`, `TOFF`, `ATT`, ...), not decoded.
  case other(className: String)

  /// `VERSION` fields.
  public struct Version: Hashable, Sendable {
    /// `release`, e.g. "3.22".
    public var release: String?
    /// `rev`, the source revision.
    public var revision: String?
    /// `proto_major`.
    public var protocolMajor: Int?
    /// `proto_minor`.
    public var protocolMinor: Int?

    /// A VERSION report.
    public init(
      release: String? = nil, revision: String? = nil, protocolMajor: Int? = nil, protocolMinor: Int? = nil
    ) {
      self.release = release
      self.revision = revision
      self.protocolMajor = protocolMajor
      self.protocolMinor = protocolMinor
    }
  }

  /// One device of `DEVICES`.
  public struct Device: Hashable, Sendable {
    /// `path`, e.g. "/dev/ttyUSB0".
    public var path: String?
    /// `driver`, e.g. "NMEA0183".
    public var driver: String?
    /// `activated`: when gpsd opened it.
    public var activated: Instant?
    /// `bps`: serial speed.
    public var bitsPerSecond: Int?
    /// `cycle`: seconds between fixes.
    public var cycleSeconds: Double?

    /// A device entry.
    public init(
      path: String? = nil, driver: String? = nil, activated: Instant? = nil, bitsPerSecond: Int? = nil,
      cycleSeconds: Double? = nil
    ) {
      self.path = path
      self.driver = driver
      self.activated = activated
      self.bitsPerSecond = bitsPerSecond
      self.cycleSeconds = cycleSeconds
    }
  }

  /// `WATCH` fields.
  public struct Watch: Hashable, Sendable {
    /// `enable`.
    public var enable: Bool?
    /// `json`: TPV/SKY reports on.
    public var json: Bool?
    /// `nmea`: NMEA pass-through on.
    public var nmea: Bool?
    /// `raw`: raw mode level (0, 1, 2).
    public var raw: Int?
    /// `device`: the one device watched, if restricted.
    public var device: String?

    /// A WATCH report.
    public init(
      enable: Bool? = nil, json: Bool? = nil, nmea: Bool? = nil, raw: Int? = nil, device: String? = nil
    ) {
      self.enable = enable
      self.json = json
      self.nmea = nmea
      self.raw = raw
      self.device = device
    }
  }

  /// `TPV` fields (names in comments).
  public struct TPV: Hashable, Sendable {
    /// `device`.
    public var device: String?
    /// `mode`: 1 no fix, 2 2D, 3 3D (0, "unknown", is `nil`).
    public var mode: FixMode?
    /// `status`: 2 DGPS, 3 RTK fixed, 4 RTK float, 5 DR, 6 GNSS+DR, 7 time only, 8 simulated, 9 P(Y).
    public var status: Int?
    /// `time`.
    public var time: Instant?
    /// `lat`.
    public var latitude: Degrees?
    /// `lon`.
    public var longitude: Degrees?
    /// `altMSL`, or `alt` from gpsd before 3.20.
    public var altitudeMSL: Meters?
    /// `altHAE`: height above the WGS84 ellipsoid.
    public var altitudeHAE: Meters?
    /// `geoidSep`.
    public var geoidSeparation: Meters?
    /// `speed`.
    public var speed: MetersPerSecond?
    /// `track`: course over ground, true.
    public var track: Degrees?
    /// `eph`: gpsd's horizontal error estimate, a 95 % radius (gpsd's error model: HDOP ×
    /// 19 m without a figure from the receiver). Not `Fix.horizontalAccuracy`'s 68 %.
    public var eph: Meters?
    /// `epx`: gpsd's longitude error estimate, 95 % (xDOP × 15 m in gpsd's model).
    public var epx: Meters?
    /// `epy`: gpsd's latitude error estimate, 95 % (yDOP × 15 m in gpsd's model).
    public var epy: Meters?

    /// A TPV report; every field may be absent.
    public init(
      device: String? = nil, mode: FixMode? = nil, status: Int? = nil, time: Instant? = nil,
      latitude: Degrees? = nil,
      longitude: Degrees? = nil, altitudeMSL: Meters? = nil, altitudeHAE: Meters? = nil,
      geoidSeparation: Meters? = nil, speed: MetersPerSecond? = nil, track: Degrees? = nil,
      eph: Meters? = nil,
      epx: Meters? = nil, epy: Meters? = nil
    ) {
      self.device = device
      self.mode = mode
      self.status = status
      self.time = time
      self.latitude = latitude
      self.longitude = longitude
      self.altitudeMSL = altitudeMSL
      self.altitudeHAE = altitudeHAE
      self.geoidSeparation = geoidSeparation
      self.speed = speed
      self.track = track
      self.eph = eph
      self.epx = epx
      self.epy = epy
    }
  }

  /// `SKY` fields.
  public struct SKY: Hashable, Sendable {
    /// `device`.
    public var device: String?
    /// `time`.
    public var time: Instant?
    /// `nSat`, else the length of `satellites`.
    public var satellitesInView: Int?
    /// `uSat`, else the number of `satellites` marked `used`.
    public var satellitesUsed: Int?
    /// `hdop`.
    public var hdop: Double?
    /// `pdop`.
    public var pdop: Double?
    /// `vdop`.
    public var vdop: Double?
    /// `satellites`: each object's `PRN`, `gnssid`, `svid`, `el`, `az`, `ss`, `used` and
    /// `sigid` (see `GpsdMessage.satellite`); empty when the report has none (gpsd sends
    /// SKY with DOPs only between its satellite reports).
    public var satellites: [Satellite]

    /// A SKY report.
    public init(
      device: String? = nil, time: Instant? = nil, satellitesInView: Int? = nil, satellitesUsed: Int? = nil,
      hdop: Double? = nil, pdop: Double? = nil, vdop: Double? = nil, satellites: [Satellite] = []
    ) {
      self.satellites = satellites
      self.device = device
      self.time = time
      self.satellitesInView = satellitesInView
      self.satellitesUsed = satellitesUsed
      self.hdop = hdop
      self.pdop = pdop
      self.vdop = vdop
    }
  }

  /// Decodes one JSON line. Throws when it is not JSON or not an object with a `class`.
  public static func parse(_ line: some Collection<UInt8>) throws(JSONParseError) -> GpsdMessage {
    let json = try JSON.parse(line)
    guard let object = json.object, let className = object["class"]?.string else {
      throw JSONParseError(offset: 0, reason: "no \"class\" member")
    }
    switch className {
    case "VERSION":
      return .version(
        Version(
          release: object["release"]?.string, revision: object["rev"]?.string,
          protocolMajor: integer(object["proto_major"]), protocolMinor: integer(object["proto_minor"])))
    case "DEVICES":
      let list = object["devices"]?.array ?? []
      return .devices(
        list.compactMap { entry in
          guard let d = entry.object else { return nil }
          return Device(
            path: d["path"]?.string, driver: d["driver"]?.string, activated: instant(d["activated"]),
            bitsPerSecond: integer(d["bps"]), cycleSeconds: d["cycle"]?.number)
        })
    case "WATCH":
      return .watch(
        Watch(
          enable: object["enable"]?.bool, json: object["json"]?.bool, nmea: object["nmea"]?.bool,
          raw: integer(object["raw"]), device: object["device"]?.string))
    case "TPV":
      return .tpv(
        TPV(
          device: object["device"]?.string, mode: integer(object["mode"]).flatMap { FixMode(rawValue: $0) },
          status: integer(object["status"]), time: instant(object["time"]),
          latitude: object["lat"]?.number.map { Degrees($0) },
          longitude: object["lon"]?.number.map { Degrees($0) },
          altitudeMSL: (object["altMSL"]?.number ?? object["alt"]?.number).map { Meters($0) },
          altitudeHAE: object["altHAE"]?.number.map { Meters($0) },
          geoidSeparation: object["geoidSep"]?.number.map { Meters($0) },
          speed: object["speed"]?.number.map { MetersPerSecond($0) },
          track: object["track"]?.number.map { Degrees($0) },
          eph: object["eph"]?.number.map { Meters($0) }, epx: object["epx"]?.number.map { Meters($0) },
          epy: object["epy"]?.number.map { Meters($0) }))
    case "SKY":
      let satellites = object["satellites"]?.array
      return .sky(
        SKY(
          device: object["device"]?.string, time: instant(object["time"]),
          satellitesInView: integer(object["nSat"]) ?? satellites?.count,
          satellitesUsed: integer(object["uSat"])
            ?? satellites.map { list in list.filter { $0["used"]?.bool == true }.count },
          hdop: object["hdop"]?.number, pdop: object["pdop"]?.number, vdop: object["vdop"]?.number,
          satellites: satellites?.compactMap(satellite) ?? []))
    case "ERROR":
      return .error(message: object["message"]?.string)
    default:
      return .other(className: className)
    }
  }

  /// One object of a SKY's `satellites`. gpsd 3.20+ names the satellite by `gnssid` and
  /// `svid`; older ones by `PRN` alone (its single numbering, `SatelliteNumbering.byRange`).
  /// `nil` for an object that names no satellite. `sigid` is gpsd's signal id (u-blox
  /// numbering), kept so a satellite's signals stay apart.
  static func satellite(_ object: JSON) -> Satellite? {
    let prn = integer(object["PRN"])
    var who: (constellation: GNSSConstellation, svid: Int, prn: Int)? = nil
    if let g = integer(object["gnssid"]).flatMap(GNSSConstellation.init(rawValue:)),
      let svid = integer(object["svid"])
    {
      who = (g, svid, prn ?? svid)
    } else if let prn {
      who = SatelliteNumbering.byRange(prn)
    }
    guard let who else { return nil }
    return Satellite(
      constellation: who.constellation, svid: who.svid, prn: who.prn, elevation: object["el"]?.number,
      azimuth: object["az"]?.number, signal: object["ss"]?.number, used: object["used"]?.bool == true,
      signalID: integer(object["sigid"]))
  }

  private static func integer(_ value: JSON?) -> Int? {
    guard let n = value?.number, n.isFinite, n.rounded() == n, abs(n) < 1e15 else { return nil }
    return Int(n)
  }

  private static func instant(_ value: JSON?) -> Instant? {
    guard let text = value?.string else { return nil }
    return Instant(iso8601: text)
  }
}

extension GpsdMessage.TPV {
  /// The `Fix` this report describes, with satellite counts and DOPs from the last `SKY`
  /// (pass `nil` if none). `nil` without a time: a fix must say when. A position is kept
  /// only in 2D/3D mode and when it is a valid coordinate. Quality comes from `status`
  /// (none or 1 is an autonomous fix). Horizontal accuracy is gpsd's 95 % `eph`, else its
  /// 95 % `epx` and `epy`, each converted to the 68 % radius `Fix` holds (`HorizontalAccuracy`).
  public func fix(sky: GpsdMessage.SKY?) -> Fix? {
    guard let time else { return nil }
    var fix = Fix(
      time: time, coordinate: nil, mode: .noFix, satellitesUsed: sky?.satellitesUsed,
      satellitesInView: sky?.satellitesInView, pdop: sky?.pdop, hdop: sky?.hdop, vdop: sky?.vdop)
    guard let mode, mode != .noFix, let latitude, let longitude else { return fix }
    let coordinate: Coordinate
    switch PositionBounds.coordinate(lat: latitude.value, lon: longitude.value) {
    case .success(let c): coordinate = c
    case .failure(let off):
      // Off the globe: a fix without a position (acceptance drops it as no-fix), and why.
      fix.outOfBounds.append(off)
      return fix
    }
    fix.mode = mode
    fix.coordinate = coordinate
    switch status {
    case 2: fix.quality = .dgps
    case 3: fix.quality = .rtkFixed
    case 4: fix.quality = .rtkFloat
    case 5, 6: fix.quality = .deadReckoning
    case 8: fix.quality = .simulated
    case 9: fix.quality = .pps
    default: fix.quality = .gps
    }
    fix.altitudeMSL = altitudeMSL
    fix.geoidSeparation = geoidSeparation
    fix.speed = speed
    fix.course = track
    if let eph {
      fix.horizontalAccuracy = HorizontalAccuracy.fromRadius95(eph)
    } else if let epx, let epy {
      fix.horizontalAccuracy = HorizontalAccuracy.fromAxes95(longitude: epx, latitude: epy)
    }
    return fix
  }
}
