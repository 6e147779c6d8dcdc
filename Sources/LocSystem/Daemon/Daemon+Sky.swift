import LocCore

/// Skies on demand (decision 0069): the sources assemble skies only while someone reads
/// satellites. The engine says whether its sessions do (`Effect.skies(wanted:)`: `sky`
/// subscribers, a recent `sky` request); the faces add theirs, which only the shell knows.
extension Daemon {
  /// The faces' readers now: a gpsd-face client watching (SKY, the TPV's epx and epy, GSV
  /// and GSA rebuilt for a source without its own), the NMEA output (GSV and GSA rebuilt).
  var faceSkyReaders: [SkyReader] {
    var readers: [SkyReader] = []
    if let gpsd = faces.gpsd, gpsd.face.watcherCount > 0 { readers.append(.gpsdWatchers) }
    if faces.nmeaOut != nil { readers.append(.nmeaOut) }
    return readers
  }

  /// The engine's wish changed (`Effect.skies(wanted:)`).
  func engineWantsSkies(_ wanted: Bool) {
    sources.skiesWantedByEngine = wanted
    updateSkies()
  }

  /// Works out whether anyone reads satellites now and tells the sources when that changed
  /// (after each of the engine's wishes and each change of the faces' readers).
  func updateSkies() {
    let readers = faceSkyReaders
    let wanted = sources.skiesWantedByEngine || !readers.isEmpty
    guard wanted != sources.skiesWanted else { return }
    if wanted {
      let who = (sources.skiesWantedByEngine ? ["a session"] : []) + readers.map(\.rawValue)
      logger.info("satellites read (\(who.joined(separator: ", "))): the sources assemble skies")
    } else {
      logger.info("nobody reads satellites: the sources decode fixes only")
    }
    sources.setSkies(wanted: wanted)
  }

  /// `status`'s `skies` with the faces' readers; the satellites' summary only while skies
  /// are assembled (otherwise it would be the last sky before they stopped).
  func completeSkies(_ report: inout StatusReport) {
    guard let skies = report.skies?.adding(faceSkyReaders) else { return }
    report.skies = skies
    if !skies.assembled { report.satellites = nil }
  }
}
