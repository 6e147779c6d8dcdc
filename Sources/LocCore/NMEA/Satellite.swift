/// A satellite system, numbered as gpsd numbers them in its `SKY` reports (`gnssid`, the
/// u-blox numbering): 0 GPS, 1 SBAS, 2 Galileo, 3 BeiDou, 4 IMES, 5 QZSS, 6 GLONASS, 7 NavIC.
public enum GNSSConstellation: Int, Hashable, Sendable, Comparable, CaseIterable {
  /// GPS (United States).
  case gps = 0
  /// SBAS: WAAS, EGNOS, MSAS, GAGAN and the other augmentation satellites.
  case sbas = 1
  /// Galileo (European Union).
  case galileo = 2
  /// BeiDou (China).
  case beidou = 3
  /// IMES, indoor messaging transmitters.
  case imes = 4
  /// QZSS (Japan).
  case qzss = 5
  /// GLONASS (Russia).
  case glonass = 6
  /// NavIC, formerly IRNSS (India).
  case navic = 7

  /// Its word on the wire (protocol's `system`): `gps`, `sbas`, `galileo`, ...
  public var word: String {
    switch self {
    case .gps: return "gps"
    case .sbas: return "sbas"
    case .galileo: return "galileo"
    case .beidou: return "beidou"
    case .imes: return "imes"
    case .qzss: return "qzss"
    case .glonass: return "glonass"
    case .navic: return "navic"
    }
  }

  /// The short name people read in tables: `GPS`, `SBAS`, `Galileo`, ...
  public var name: String {
    switch self {
    case .gps: return "GPS"
    case .sbas: return "SBAS"
    case .galileo: return "Galileo"
    case .beidou: return "BeiDou"
    case .imes: return "IMES"
    case .qzss: return "QZSS"
    case .glonass: return "GLONASS"
    case .navic: return "NavIC"
    }
  }

  /// Orders by `gnssid`.
  public static func < (a: GNSSConstellation, b: GNSSConstellation) -> Bool { a.rawValue < b.rawValue }
}

/// One satellite in view as the receiver reported it: who it is, where it is in the sky,
/// how strong its signal is and whether the fix used it. Elevation, azimuth and signal may
/// each be missing (a receiver lists satellites it tracks before it knows their position, and
/// ones it knows of but does not hear).
public struct Satellite: Hashable, Sendable {
  /// Its system.
  public var constellation: GNSSConstellation
  /// Its number within the system (gpsd's `svid`): GPS 1-32, SBAS 120-158, GLONASS slot
  /// 1-32, Galileo 1-36, BeiDou 1-63, QZSS 1-10, NavIC 1-14.
  public var svid: Int
  /// Its number in gpsd's single numbering (gpsd's `PRN`): GPS 1-32, SBAS as the receiver
  /// numbered it (NMEA 33-64, or 120-158), GLONASS 65-96, QZSS 193-202, Galileo 301-336,
  /// BeiDou 401-463, NavIC 801-814.
  public var prn: Int
  /// Elevation above the horizon, degrees (-90...90).
  public var elevation: Double?
  /// Azimuth from true north, degrees (0..<360).
  public var azimuth: Double?
  /// Signal to noise ratio (C/N0), dB-Hz; `nil` when not heard.
  public var signal: Double?
  /// Whether the receiver used it in its fix.
  public var used: Bool
  /// The NMEA 4.10+ signal id (1 GPS L1 C/A, ...), when the receiver says which signal.
  public var signalID: Int?

  /// A satellite from its fields.
  public init(
    constellation: GNSSConstellation, svid: Int, prn: Int, elevation: Double? = nil, azimuth: Double? = nil,
    signal: Double? = nil, used: Bool = false, signalID: Int? = nil
  ) {
    self.constellation = constellation
    self.svid = svid
    self.prn = prn
    self.elevation = elevation
    self.azimuth = azimuth
    self.signal = signal
    self.used = used
    self.signalID = signalID
  }

  /// The order of tables: by system, then number, then signal.
  public static func tableOrder(_ a: Satellite, _ b: Satellite) -> Bool { a.orderKey < b.orderKey }

  /// System, number and signal in one integer, for sorting without comparing field by field
  /// (numbers and signals are far below 2^24 and 2^16; a negative one sorts first).
  var orderKey: Int64 {
    Int64(constellation.rawValue) << 40 | Int64(min(max(svid, 0), 0xFF_FFFF)) << 16
      | Int64(min(max(signalID ?? 0, 0), 0xFFFF))
  }
}

/// What one receiver saw in one cycle: the satellites in view, sorted by system and number.
public struct Sky: Hashable, Sendable {
  /// The satellites, in `Satellite.tableOrder`.
  public var satellites: [Satellite]

  /// A sky; the list is sorted (in place: the list is taken, not copied).
  public init(satellites: consuming [Satellite]) {
    var list = satellites
    list.sort(by: Satellite.tableOrder)
    self.satellites = list
  }

  /// The one-line summary `locctl status` prints.
  public struct Summary: Hashable, Sendable {
    /// Satellites used in the fix (each counted once, whatever signals it has).
    public var used: Int
    /// Satellites in view (each counted once).
    public var inView: Int
    /// The strongest signal, dB-Hz; `nil` when none is heard.
    public var bestSignal: Double?

    /// A summary from its fields.
    public init(used: Int, inView: Int, bestSignal: Double?) {
      self.used = used
      self.inView = inView
      self.bestSignal = bestSignal
    }
  }

  /// Counts by satellite, not by signal: NMEA 4.10 lists a satellite once per signal.
  public var summary: Summary {
    var seen = Set<Int>()
    var used = Set<Int>()
    var best: Double? = nil
    for s in satellites {
      let key = s.constellation.rawValue << 16 | s.svid
      seen.insert(key)
      if s.used { used.insert(key) }
      if let ss = s.signal, best.map({ ss > $0 }) ?? true { best = ss }
    }
    return Summary(used: used.count, inView: seen.count, bestSignal: best)
  }
}
