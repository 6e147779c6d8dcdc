/// From the satellite ids of NMEA GSV and GSA to a satellite's identity (system, `svid`, and
/// gpsd's `PRN`). NMEA 4.x numbers GPS 1-32, SBAS 33-64 (PRN 120-151, so 33 more than 87
/// below the SBAS number), GLONASS 65-96 (slot + 64), QZSS 193-202; a system's own talker
/// (GL, GA, GB/BD, GQ, GI) may use the system's own numbers instead (Galileo 1-36, BeiDou
/// 1-63, QZSS 1-10, GLONASS slots 1-32). Receivers also send the raw SBAS numbers 120-158,
/// and gpsd's own ranges (Galileo 301-336, BeiDou 401-463) or BeiDou 201-263. The talker
/// (or a GSA's NMEA 4.10 system id) says which system a number belongs to; for `GN` and
/// other talkers the number's range decides.
public enum SatelliteNumbering {
  /// The system a talker's satellites belong to; `nil` for `GP` (which carries SBAS and
  /// QZSS too), `GN` and unknown talkers, whose ids are read by range.
  public static func system(ofTalker talker: NMEATalker) -> GNSSConstellation? {
    switch talker {
    case .glonass: return .glonass
    case .galileo: return .galileo
    case .beidou, .beidouBD: return .beidou
    case .qzss: return .qzss
    case .navic: return .navic
    default: return nil
    }
  }

  /// The system of an NMEA 4.10 system id (GSA field 18): 1 GPS, 2 GLONASS, 3 Galileo, 4
  /// BeiDou, 5 QZSS, 6 NavIC. `nil` for GPS (whose GSA may list SBAS ids too: read by range)
  /// and unknown ids.
  public static func system(ofSystemID id: Int) -> GNSSConstellation? {
    switch id {
    case 2: return .glonass
    case 3: return .galileo
    case 4: return .beidou
    case 5: return .qzss
    case 6: return .navic
    default: return nil
    }
  }

  /// The identity of NMEA satellite id `id` from a talker of `system` (`nil`: read by
  /// range); `nil` when the id is 0 or in no known range.
  public static func identify(_ id: Int, system: GNSSConstellation?)
    -> (constellation: GNSSConstellation, svid: Int, prn: Int)?
  {
    switch system {
    case .glonass?:
      if (1...32).contains(id) { return (.glonass, id, id + 64) }
    case .galileo?:
      if (1...36).contains(id) { return (.galileo, id, id + 300) }
    case .beidou?:
      if (1...63).contains(id) { return (.beidou, id, id + 400) }
      if (201...263).contains(id) { return (.beidou, id - 200, id + 200) }
    case .qzss?:
      if (1...10).contains(id) { return (.qzss, id, id + 192) }
    case .navic?:
      if (1...14).contains(id) { return (.navic, id, id + 800) }
    default:
      break
    }
    return byRange(id)
  }

  /// The identity of an id in the NMEA 4.x single numbering (and gpsd's ranges above it).
  static func byRange(_ id: Int) -> (constellation: GNSSConstellation, svid: Int, prn: Int)? {
    switch id {
    case 1...32: return (.gps, id, id)
    case 33...64: return (.sbas, id + 87, id)
    case 65...96: return (.glonass, id - 64, id)
    case 120...158: return (.sbas, id, id)
    case 193...202: return (.qzss, id - 192, id)
    case 301...336: return (.galileo, id - 300, id)
    case 401...463: return (.beidou, id - 400, id)
    case 801...814: return (.navic, id - 800, id)
    default: return nil
    }
  }
}
