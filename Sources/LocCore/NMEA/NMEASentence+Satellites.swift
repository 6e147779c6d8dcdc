extension NMEASentence {
  /// GSA: selection mode, fix type, twelve satellite id fields, PDOP, HDOP, VDOP and (NMEA
  /// 4.10+) the system id. `parseGSACount` reads the same fields but the ids.
  static func parseGSA(_ r: inout NMEAFieldReader) throws(NMEAFieldError) -> GSA {
    r.skip(1)  // selection mode, A or M
    let fixMode = try gsaFixMode(r.next())
    var used = 0
    var ids = SatelliteIDs()
    for _ in 0..<12 {
      let field = r.next()
      guard !field.isEmpty else { continue }
      used += 1
      // An id that is not a number still counts as used (as before), but names nobody.
      if let id = (try? field.unsignedInteger()).flatMap({ $0 }) { ids.append(id) }
    }
    return try gsaTail(&r, fixMode: fixMode, used: used, ids: ids)
  }

  /// A GSA without its ids (`satelliteIDs` empty; the filled id fields counted), for a reader
  /// that wants only fixes. Kept small, so that it is inlined into `parse` with the field
  /// reader: the one that reads the ids is not, and costs a GSA 1.3 times as much.
  static func parseGSACount(_ r: inout NMEAFieldReader) throws(NMEAFieldError) -> GSA {
    r.skip(1)  // selection mode, A or M
    let fixMode = try gsaFixMode(r.next())
    var used = 0
    for _ in 0..<12 where !r.next().isEmpty { used += 1 }
    return try gsaTail(&r, fixMode: fixMode, used: used, ids: SatelliteIDs())
  }

  /// Field 2 of a GSA: the fix type.
  private static func gsaFixMode(_ field: NMEAField) throws(NMEAFieldError) -> FixMode? {
    guard let m = try field.unsignedInteger() else { return nil }
    guard let f = FixMode(rawValue: m) else { throw NMEAFieldError(field: field.number, reason: .outOfRange) }
    return f
  }

  /// Fields 15-18 of a GSA, and the GSA.
  private static func gsaTail(
    _ r: inout NMEAFieldReader, fixMode: FixMode?, used: Int, ids: SatelliteIDs
  ) throws(NMEAFieldError) -> GSA {
    let pdop = try dop(r.next())
    let hdop = try dop(r.next())
    let vdop = try dop(r.next())
    // Field 18 is the system id in NMEA 4.10+, but some receivers put a TDOP there
    // (SiRF: "3.3"): a field that is not a small integer is simply not a system id.
    let systemID = (try? r.next().unsignedInteger()).flatMap { $0 }
    return GSA(
      fixMode: fixMode, satellitesUsed: used, pdop: pdop, hdop: hdop, vdop: vdop, systemID: systemID,
      satelliteIDs: ids)
  }

  /// GSV: parts, this part, satellites in view, then blocks of four fields (id, elevation,
  /// azimuth, SNR), then (NMEA 4.10+) one signal-id field. A block without an id (padding)
  /// or with a field that is not a number is left out, and blocks after the fourth (more
  /// than NMEA 0183 allows in one sentence); the sentence stays good.
  /// `blocks: false` skips the blocks (the header and signal id are still read).
  static func parseGSV(_ r: inout NMEAFieldReader, blocks wanted: Bool = true) throws(NMEAFieldError) -> GSV {
    let totalField = r.next()
    let partField = r.next()
    guard let total = try totalField.unsignedInteger(), total >= 1 else {
      throw NMEAFieldError(field: totalField.number, reason: totalField.isEmpty ? .missing : .outOfRange)
    }
    guard let part = try partField.unsignedInteger(), part >= 1, part <= total else {
      throw NMEAFieldError(field: partField.number, reason: partField.isEmpty ? .missing : .outOfRange)
    }
    let inView = try r.next().unsignedInteger()
    let rest = r.remainingCount
    var signal: Int? = nil
    if rest % 4 == 1 {
      signal = try r.lastField(number: r.number + rest).unsignedInteger()
    }
    var blocks = SatelliteBlocks()
    for _ in 0..<(wanted ? min(rest / 4, SatelliteBlocks.capacity) : 0) {
      let idField = r.next()
      let elevationField = r.next()
      let azimuthField = r.next()
      let snrField = r.next()
      guard let id = (try? idField.unsignedInteger()).flatMap({ $0 }), id > 0 else { continue }
      do {
        blocks.append(
          SatelliteBlock(
            id: id, elevation: try elevationField.decimal(), azimuth: try azimuthField.decimal(),
            snr: try snrField.decimal()))
      } catch {
        continue
      }
    }
    return GSV(totalParts: total, part: part, satellitesInView: inView, signalID: signal, satellites: blocks)
  }
}
