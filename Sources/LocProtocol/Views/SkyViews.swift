import LocCore

/// One satellite on the wire (docs/PROTOCOL.md, "sky"): gpsd's identity (`gnssid`, `svid`,
/// `prn`) with the system's name, where it is and how well it is heard.
public struct SatelliteView: WireCodable {
  /// The system's name on the wire; newer minor versions may add systems.
  public enum System: String, Sendable, Hashable, CaseIterable {
    case gps, sbas, galileo, beidou, imes, qzss, glonass, navic
  }

  /// Its system.
  public var system: OpenEnum<System>
  /// gpsd's number of the system (0 GPS, 1 SBAS, 2 Galileo, 3 BeiDou, 4 IMES, 5 QZSS, 6
  /// GLONASS, 7 NavIC): the order of tables.
  public var gnssid: Int
  /// Its number within the system.
  public var svid: Int
  /// Its number in gpsd's single numbering (`PRN`).
  public var prn: Int
  /// Elevation, degrees; nil when the receiver does not know it.
  public var elevation: Double?
  /// Azimuth from true north, degrees; nil when not known.
  public var azimuth: Double?
  /// Signal, dB-Hz; nil when not heard.
  public var signal: Double?
  /// Whether the fix used it.
  public var used: Bool
  /// The signal id (NMEA 4.10's; gpsd's `sigid` from a gpsd source), when the receiver names one.
  public var signalID: Int?

  /// The wire form of `s`.
  public init(_ s: Satellite) {
    system = OpenEnum(s.constellation.word)
    gnssid = s.constellation.rawValue
    svid = s.svid
    prn = s.prn
    elevation = s.elevation
    azimuth = s.azimuth
    signal = s.signal
    used = s.used
    signalID = s.signalID
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    system = try o.open("system")
    gnssid = try o.int("gnssid")
    svid = try o.int("svid")
    prn = try o.int("prn")
    elevation = try o.optionalNumber("elevation")
    azimuth = try o.optionalNumber("azimuth")
    signal = try o.optionalNumber("signal")
    used = try o.bool("used")
    signalID = try o.optionalInt("signalId")
  }

  public var json: JSON {
    var o: JSONObject = [
      "system": .string(system.word), "gnssid": .int(gnssid), "svid": .int(svid), "prn": .int(prn),
      "elevation": .optional(elevation), "azimuth": .optional(azimuth), "signal": .optional(signal),
      "used": .bool(used),
    ]
    if let signalID { o["signalId"] = .int(signalID) }
    return .object(o)
  }
}

/// The sky summary on the wire: `status`'s `satellites` object and part of each sky.
public struct SatellitesSummaryView: WireCodable {
  /// Satellites used in the fix.
  public var used: Int
  /// Satellites in view.
  public var inView: Int
  /// The strongest signal, dB-Hz; nil when none is heard.
  public var bestSignal: Double?

  /// The wire form of `s`.
  public init(_ s: Sky.Summary) {
    used = s.used
    inView = s.inView
    bestSignal = s.bestSignal
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    used = try o.int("used")
    inView = try o.int("inView")
    bestSignal = try o.optionalNumber("bestSignal")
  }

  public var json: JSON {
    .object(["used": .int(used), "inView": .int(inView), "bestSignal": .optional(bestSignal)])
  }
}

/// One source's sky on the wire: in the `sky` method's result and as the `sky` event.
public struct SkyView: WireCodable {
  /// The source's URI.
  public var source: String
  /// When the daemon got it, to the second.
  public var time: Instant
  /// Used, in view, best signal.
  public var summary: SatellitesSummaryView
  /// The satellites, by system then number.
  public var satellites: [SatelliteView]

  /// The wire form of `s`.
  public init(_ s: SourceSky) {
    source = s.source
    time = WireFormat.truncate(s.time, 0)
    summary = SatellitesSummaryView(s.sky.summary)
    satellites = s.sky.satellites.map(SatelliteView.init)
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    source = try o.string("source")
    time = try o.instant("time")
    summary = try o.decode("summary")
    satellites = try o.array("satellites")
  }

  public var json: JSON {
    .object([
      "source": .string(source), "time": WireFormat.time(time, 0), "summary": summary.json,
      "satellites": .array(satellites.map(\.json)),
    ])
  }
}

/// The answer to `sky`: each source's latest sky (sources without one are left out).
public struct SkyResult: WireCodable {
  /// The skies, in the order of the configured sources.
  public var skies: [SkyView]

  /// A result.
  public init(skies: [SkyView]) { self.skies = skies }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    skies = try WireObject(json, path: path).array("skies")
  }

  public var json: JSON { .object(["skies": .array(skies.map(\.json))]) }
}

/// Whether the sources assemble skies and who reads them: `status`'s `skies` (since 1.11,
/// decision 0069).
public struct SkiesStatusView: WireCodable {
  /// Whether skies are assembled now.
  public var assembled: Bool
  /// Who reads them (`SkyReader`'s names, an open enumeration); empty while they are not
  /// assembled.
  public var readers: [OpenEnum<SkyReader>]
  /// Skies the sources assembled since start.
  public var built: Int
  /// Until when the last `sky` request keeps them assembled, to the second (absent: none).
  public var askedUntil: Instant?
  /// `sky` requests waiting for the receivers' first skies.
  public var waiting: Int

  /// The wire form of `r`.
  public init(_ r: SkiesReport) {
    assembled = r.assembled
    readers = r.readers.map(OpenEnum.known)
    built = r.built
    askedUntil = r.askedUntil.map { WireFormat.truncate($0, 0) }
    waiting = r.waiting
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    assembled = try o.bool("assembled")
    readers = try o.strings("readers").map { OpenEnum($0) }
    built = try o.int("built")
    askedUntil = try o.optionalInstant("askedUntil")
    waiting = try o.int("waiting")
  }

  public var json: JSON {
    var o: JSONObject = [
      "assembled": .bool(assembled), "readers": .array(readers.map { .string($0.word) }),
      "built": .int(built), "waiting": .int(waiting),
    ]
    if let askedUntil { o["askedUntil"] = WireFormat.time(askedUntil, 0) }
    return .object(o)
  }
}
