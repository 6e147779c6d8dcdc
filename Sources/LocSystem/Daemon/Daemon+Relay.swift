import LocCore

/// The receiver's own sentences, passed on as they came (docs/GPSD.md, docs/NMEAOUT.md,
/// decision 0051): each checked line of a source that reads NMEA goes straight from the
/// source's decoder to the gpsd face's `raw`/`nmea` watchers of full accuracy and to the NMEA
/// output's readers, without the engine (a sentence is not a position: the clients it goes
/// to were let have every fix of that source). A source once seen sending sentences is one
/// whose fixes are not rebuilt into sentences for them.
extension Daemon {
  /// A line a source read (`SourceSink.sentence`).
  func relay(_ line: UnsafeRawBufferPointer, from id: SourceID) {
    guard let first = line.first, first == 0x24 || first == 0x21 else { return }
    let face = faces.gpsd?.wantsSentences == true || faces.nmeaTCP?.wantsSentences == true
    let pty = faces.nmeaOut?.0.isReading == true
    if faces.nmeaSources[id] != nil, !face, !pty { return }
    guard let text = RelayedSentence.text(of: line) else { return }
    let uri: String
    if let known = faces.nmeaSources[id] {
      uri = known
    } else {
      guard let name = sourceName(id) else { return }
      uri = name
      faces.nmeaSources[id] = uri
      logger.debug("source \(uri) sends NMEA: its own sentences are passed on")
    }
    if face {
      faces.gpsd?.relay(text, device: uri)
      faces.nmeaTCP?.relay(text, device: uri)
    }
    if pty { faces.nmeaOut?.0.relay(text) }
  }

  /// The configuration's URI of source `id`, as the faces name a device (and its snapshot
  /// does; not the snapshot itself, which reads the decoder's counters, in use by the read
  /// that asks): made once, for it is asked for every cycle.
  func sourceName(_ id: SourceID) -> String? {
    if let known = faces.sourceNames[id] { return known }
    guard config.effectiveSources.indices.contains(id.index) else { return nil }
    let name = config.effectiveSources[id.index].description
    faces.sourceNames[id] = name
    return name
  }

  /// Whether the source of `uri` sends its own sentences (then they are passed on, and its
  /// fixes are not rebuilt into sentences).
  func sendsSentences(_ uri: String) -> Bool { faces.nmeaSources.values.contains(uri) }
}
