/// Joins the GSV parts and GSA lists of a receiver's cycles into one `Sky` per cycle, for
/// `EpochAssembler`.
///
/// A GSV message comes in parts (1 of 3, 2 of 3, 3 of 3), one message per talker and, from
/// NMEA 4.10 on, per signal: each (talker, signal) is one set, complete when its last part
/// has arrived after all the others in order, within the cycle of its first part or the next
/// (a set with a part missing, or whose parts are cycles apart, is dropped). A cycle
/// that completes at least one set gives a sky: the sets it completed, with the latest set
/// of each other (talker, signal) from the last `staleEpochs` cycles (receivers that send
/// one system's GSV per cycle, or GSV every few cycles). Whether a satellite is used comes
/// from the GSA lists of the same cycle, or of the latest cycle that had any.
struct SkyAssembler: Sendable {
  /// A set older than this many cycles is no longer part of the sky.
  static let staleEpochs = 5

  /// A GSV message being collected.
  private struct Pending: Sendable {
    var nextPart: Int
    var satellites: [Satellite]
    /// The cycle its first part came in.
    var epoch: Int
  }

  /// Sets being collected, by `setKey`.
  private var pending: [UInt32: Pending] = [:]
  /// The latest complete set of each (talker, signal), with the cycle it completed in.
  private var complete: [UInt32: (epoch: Int, satellites: [Satellite])] = [:]
  /// This cycle's GSA lists (`satelliteKey`s), `nil` before its first GSA.
  private var cycleUsed: Set<Int>?
  /// The used satellites of the latest cycle that had a GSA.
  private var lastUsed: Set<Int> = []
  /// Cycles closed so far.
  private var epoch = 0
  /// Whether this cycle completed a set.
  private var completedOne = false

  /// Identifies a satellite across sentences (system and number; signals are one satellite).
  static func satelliteKey(_ c: GNSSConstellation, _ svid: Int) -> Int { c.rawValue << 16 | svid }

  /// Identifies a GSV set: talker and signal.
  private static func setKey(_ talker: NMEATalker, _ signal: Int?) -> UInt32 {
    UInt32(talker.rawValue) << 16 | UInt32(truncatingIfNeeded: (signal ?? 0xFFFF) & 0xFFFF)
  }

  /// Adds one GSV part from `talker`.
  mutating func add(_ gsv: NMEASentence.GSV, from talker: NMEATalker) {
    let key = SkyAssembler.setKey(talker, gsv.signalID)
    let system = SatelliteNumbering.system(ofTalker: talker)
    // Taken out of the dictionary while it grows, so that appending copies nothing.
    var set: Pending
    if gsv.part == 1 {
      pending[key] = nil
      set = Pending(nextPart: 1, satellites: [], epoch: epoch)
      set.satellites.reserveCapacity(max(gsv.satellitesInView ?? 0, gsv.satellites.count))
    } else if let p = pending.removeValue(forKey: key), p.nextPart == gsv.part, epoch - p.epoch <= 1 {
      set = p
    } else {
      return  // a part is missing: the set cannot be complete
    }
    for block in gsv.satellites {
      guard let who = SatelliteNumbering.identify(block.id, system: system) else { continue }
      set.satellites.append(
        Satellite(
          constellation: who.constellation, svid: who.svid, prn: who.prn, elevation: block.elevation,
          azimuth: block.azimuth, signal: block.snr, signalID: gsv.signalID))
    }
    if gsv.part == gsv.totalParts {
      complete[key] = (epoch, set.satellites)
      completedOne = true
    } else {
      set.nextPart = gsv.part + 1
      pending[key] = set
    }
  }

  /// Adds one GSA from `talker`: its ids are this cycle's used satellites.
  mutating func add(_ gsa: NMEASentence.GSA, from talker: NMEATalker) {
    let system =
      gsa.systemID.flatMap(SatelliteNumbering.system(ofSystemID:))
      ?? SatelliteNumbering.system(ofTalker: talker)
    var used = cycleUsed ?? []
    for id in gsa.satelliteIDs {
      if let who = SatelliteNumbering.identify(id, system: system) {
        used.insert(SkyAssembler.satelliteKey(who.constellation, who.svid))
      }
    }
    cycleUsed = used
  }

  /// Ends the cycle: its sky, if it completed a GSV set.
  mutating func closeEpoch() -> Sky? {
    defer {
      epoch += 1
      completedOne = false
      cycleUsed = nil
    }
    if let used = cycleUsed { lastUsed = used }
    guard completedOne else { return nil }
    for (key, set) in complete where epoch - set.epoch >= SkyAssembler.staleEpochs {
      complete[key] = nil
    }
    var satellites: [Satellite] = []
    satellites.reserveCapacity(complete.values.reduce(0) { $0 + $1.satellites.count })
    for set in complete.values {
      for var s in set.satellites {
        s.used = lastUsed.contains(SkyAssembler.satelliteKey(s.constellation, s.svid))
        satellites.append(s)
      }
    }
    return Sky(satellites: satellites)
  }
}
