/// One decoded NMEA 0183 sentence (versions 2.x to 4.11) of the types locd uses for fixes:
/// RMC, GGA, GLL, GNS, GSA, GSV, VTG, ZDA and GST, from any talker. Fields locd does not
/// use are skipped without being checked. Missing fields are `nil`, never 0.
public struct NMEASentence: Hashable, Sendable {
  /// Who sent it (`GP`, `GN`, `GL`, ...).
  public var talker: NMEATalker
  /// What it says.
  public var content: Content

  /// A sentence from its parts.
  public init(talker: NMEATalker, content: Content) {
    self.talker = talker
    self.content = content
  }

  /// The decoded payload, one case per sentence type.
  public enum Content: Hashable, Sendable {
    /// Recommended minimum data: time, date, position, speed, course.
    case rmc(RMC)
    /// Fix data: time, position, quality, satellites, HDOP, altitude.
    case gga(GGA)
    /// Geographic position: position and time.
    case gll(GLL)
    /// GNSS fix data (multi-system GGA): per-system mode letters.
    case gns(GNS)
    /// DOPs and the satellites used.
    case gsa(GSA)
    /// Satellites in view (one part of a multi-part message).
    case gsv(GSV)
    /// Course and speed over ground.
    case vtg(VTG)
    /// Time and date.
    case zda(ZDA)
    /// Pseudorange error statistics: position error sigmas.
    case gst(GST)
  }

  /// RMC fields (NMEA 0183 4.11 field numbers in comments).
  public struct RMC: Hashable, Sendable {
    /// 1: UTC time.
    public var time: TimeOfDay?
    /// 2 and 12: status `A` and a mode indicator other than `N`.
    public var valid: Bool
    /// 3-6: position, decoded only when `valid`.
    public var coordinate: Coordinate?
    /// 7: speed over ground (knots on the wire).
    public var speed: MetersPerSecond?
    /// 8: course over ground, true.
    public var course: Degrees?
    /// 9: UTC date.
    public var date: CivilDate?
    /// 12 (NMEA 2.3+): mode indicator.
    public var mode: NMEAModeIndicator?
    /// 13 (NMEA 4.1+): navigational status letter (`S` safe, `C` caution, `U` unsafe, `V` not valid).
    public var navigationalStatus: UInt8?

    /// An RMC from its fields.
    public init(
      time: TimeOfDay?, valid: Bool, coordinate: Coordinate?, speed: MetersPerSecond?, course: Degrees?,
      date: CivilDate?, mode: NMEAModeIndicator?, navigationalStatus: UInt8?
    ) {
      self.time = time
      self.valid = valid
      self.coordinate = coordinate
      self.speed = speed
      self.course = course
      self.date = date
      self.mode = mode
      self.navigationalStatus = navigationalStatus
    }
  }

  /// GGA fields.
  public struct GGA: Hashable, Sendable {
    /// 1: UTC time.
    public var time: TimeOfDay?
    /// 2-5: position, decoded only when `quality` says there is a fix.
    public var coordinate: Coordinate?
    /// 6: quality indicator 1...8 as a `FixQuality`; `nil` for 0 (no fix) or empty.
    public var quality: FixQuality?
    /// 7: satellites in use.
    public var satellitesUsed: Int?
    /// 8: HDOP.
    public var hdop: Double?
    /// 9: altitude above mean sea level (unit field 10 must be `M`).
    public var altitudeMSL: Meters?
    /// 11: geoid separation (unit field 12 must be `M`).
    public var geoidSeparation: Meters?

    /// A GGA from its fields.
    public init(
      time: TimeOfDay?, coordinate: Coordinate?, quality: FixQuality?, satellitesUsed: Int?, hdop: Double?,
      altitudeMSL: Meters?, geoidSeparation: Meters?
    ) {
      self.time = time
      self.coordinate = coordinate
      self.quality = quality
      self.satellitesUsed = satellitesUsed
      self.hdop = hdop
      self.altitudeMSL = altitudeMSL
      self.geoidSeparation = geoidSeparation
    }
  }

  /// GLL fields.
  public struct GLL: Hashable, Sendable {
    /// 5: UTC time.
    public var time: TimeOfDay?
    /// 6 and 7: status `A` and a mode indicator other than `N`.
    public var valid: Bool
    /// 1-4: position, decoded only when `valid`.
    public var coordinate: Coordinate?
    /// 7 (NMEA 2.3+): mode indicator.
    public var mode: NMEAModeIndicator?

    /// A GLL from its fields.
    public init(time: TimeOfDay?, valid: Bool, coordinate: Coordinate?, mode: NMEAModeIndicator?) {
      self.time = time
      self.valid = valid
      self.coordinate = coordinate
      self.mode = mode
    }
  }

  /// GNS fields.
  public struct GNS: Hashable, Sendable {
    /// 1: UTC time.
    public var time: TimeOfDay?
    /// 2-5: position, decoded only when some system has a fix.
    public var coordinate: Coordinate?
    /// 6: the best of the per-system mode letters (RTK fixed > float > precise > differential
    /// > autonomous > estimated > manual > simulator > no fix).
    public var mode: NMEAModeIndicator?
    /// 7: satellites in use (all systems).
    public var satellitesUsed: Int?
    /// 8: HDOP.
    public var hdop: Double?
    /// 9: altitude above mean sea level.
    public var altitudeMSL: Meters?
    /// 10: geoid separation.
    public var geoidSeparation: Meters?
    /// 13 (NMEA 4.1+): navigational status letter.
    public var navigationalStatus: UInt8?

    /// A GNS from its fields.
    public init(
      time: TimeOfDay?, coordinate: Coordinate?, mode: NMEAModeIndicator?, satellitesUsed: Int?,
      hdop: Double?,
      altitudeMSL: Meters?, geoidSeparation: Meters?, navigationalStatus: UInt8?
    ) {
      self.time = time
      self.coordinate = coordinate
      self.mode = mode
      self.satellitesUsed = satellitesUsed
      self.hdop = hdop
      self.altitudeMSL = altitudeMSL
      self.geoidSeparation = geoidSeparation
      self.navigationalStatus = navigationalStatus
    }
  }

  /// GSA fields.
  public struct GSA: Hashable, Sendable {
    // The ids first and the fix type right after them: stored in this order, a GSA (97 bytes)
    // is no larger than an RMC, so a sentence stays 108 bytes, which the compiler copies
    // without calling memcpy (with the ids last it was 130, a memcpy per sentence).
    /// 3-14: the ids of the satellites used, as numbered by the talker (see
    /// `SatelliteNumbering`); ids that are not integers are left out. Empty when the sentence
    /// was parsed without its satellites (`NMEASentence.parse(_:satellites:)`).
    public var satelliteIDs: SatelliteIDs
    /// 2: fix type, 1 (none), 2 (2D) or 3 (3D).
    public var fixMode: FixMode?
    /// 3-14: how many satellite id fields are filled in.
    public var satellitesUsed: Int
    /// 15: PDOP (`nil` when empty or 0, which receivers send for "unknown").
    public var pdop: Double?
    /// 16: HDOP.
    public var hdop: Double?
    /// 17: VDOP.
    public var vdop: Double?
    /// 18 (NMEA 4.10+): GNSS system id (1 GPS, 2 GLONASS, 3 Galileo, 4 BeiDou, 5 QZSS, 6 NavIC).
    public var systemID: Int?

    /// A GSA from its fields.
    public init(
      fixMode: FixMode?, satellitesUsed: Int, pdop: Double?, hdop: Double?, vdop: Double?, systemID: Int?,
      satelliteIDs: SatelliteIDs = SatelliteIDs()
    ) {
      self.fixMode = fixMode
      self.satellitesUsed = satellitesUsed
      self.satelliteIDs = satelliteIDs
      self.pdop = pdop
      self.hdop = hdop
      self.vdop = vdop
      self.systemID = systemID
    }
  }

  /// GSV fields: the header and this part's satellite blocks.
  public struct GSV: Hashable, Sendable {
    /// 1: number of parts of this message.
    public var totalParts: Int
    /// 2: this part, 1...totalParts.
    public var part: Int
    /// 3: satellites in view for this talker (and signal).
    public var satellitesInView: Int?
    /// Last field (NMEA 4.10+): signal id.
    public var signalID: Int?
    /// 4-7, 8-11, 12-15, 16-19: the satellite blocks of this part, without the empty ones
    /// some receivers pad the last part with.
    public var satellites: SatelliteBlocks

    /// A GSV from its fields.
    public init(
      totalParts: Int, part: Int, satellitesInView: Int?, signalID: Int?,
      satellites: SatelliteBlocks = SatelliteBlocks()
    ) {
      self.totalParts = totalParts
      self.satellites = satellites
      self.part = part
      self.satellitesInView = satellitesInView
      self.signalID = signalID
    }
  }

  /// One satellite of a GSV: its id as the talker numbers it, and what the receiver knows.
  public struct SatelliteBlock: Hashable, Sendable {
    /// The satellite id (see `SatelliteNumbering`).
    public var id: Int
    /// Elevation, degrees.
    public var elevation: Double?
    /// Azimuth, degrees true.
    public var azimuth: Double?
    /// Signal to noise ratio, dB-Hz; `nil` when not tracked.
    public var snr: Double?

    /// A block from its fields.
    public init(id: Int, elevation: Double?, azimuth: Double?, snr: Double?) {
      self.id = id
      self.elevation = elevation
      self.azimuth = azimuth
      self.snr = snr
    }
  }

  /// VTG fields.
  public struct VTG: Hashable, Sendable {
    /// 1: course over ground, true.
    public var course: Degrees?
    /// 5 (knots), else 7 (km/h): speed over ground.
    public var speed: MetersPerSecond?
    /// 9 (NMEA 2.3+): mode indicator.
    public var mode: NMEAModeIndicator?

    /// A VTG from its fields.
    public init(course: Degrees?, speed: MetersPerSecond?, mode: NMEAModeIndicator?) {
      self.course = course
      self.speed = speed
      self.mode = mode
    }
  }

  /// ZDA fields.
  public struct ZDA: Hashable, Sendable {
    /// 1: UTC time.
    public var time: TimeOfDay?
    /// 2-4: UTC date (day, month, four-digit year).
    public var date: CivilDate?

    /// A ZDA from its fields.
    public init(time: TimeOfDay?, date: CivilDate?) {
      self.time = time
      self.date = date
    }
  }

  /// GST fields.
  public struct GST: Hashable, Sendable {
    /// 1: UTC time.
    public var time: TimeOfDay?
    /// 6: standard deviation of the latitude error.
    public var latitudeSigma: Meters?
    /// 7: standard deviation of the longitude error.
    public var longitudeSigma: Meters?
    /// 8: standard deviation of the altitude error.
    public var altitudeSigma: Meters?

    /// A GST from its fields.
    public init(time: TimeOfDay?, latitudeSigma: Meters?, longitudeSigma: Meters?, altitudeSigma: Meters?) {
      self.time = time
      self.latitudeSigma = latitudeSigma
      self.longitudeSigma = longitudeSigma
      self.altitudeSigma = altitudeSigma
    }
  }

  /// The UTC time the sentence carries, if its type has one.
  @inlinable public var time: TimeOfDay? {
    switch content {
    case .rmc(let s): return s.time
    case .gga(let s): return s.time
    case .gll(let s): return s.time
    case .gns(let s): return s.time
    case .zda(let s): return s.time
    case .gst(let s): return s.time
    case .gsa, .gsv, .vtg: return nil
    }
  }
}
