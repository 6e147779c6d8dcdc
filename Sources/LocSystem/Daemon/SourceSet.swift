import LocCore

/// The configuration's fix and beacon sources, running, and what acquisition last wanted of
/// them: receivers powered or asleep, beacons scanned or not (Daemon+Sources starts them).
final class SourceSet {
  private let loop: EventLoop
  /// Builds the source for a URI (nil: not supported in this build).
  let make: (SourceURI, SourceID, EventLoop, SourceSink) -> FixSource?
  /// The sources running, in configuration order.
  private(set) var all: [FixSource] = []
  /// Whether the engine wants receivers powered (its last `receivers(active:)`).
  private(set) var receiversActive = true
  /// Whether the engine wants beacon scanning (its last `beaconScanning(active:)`).
  private(set) var beaconScanning = false
  /// Whether the engine wants the compass claimed (its last `compass(claimed:)`).
  private(set) var compassClaimed = false
  /// Whether someone reads satellites, so the sources assemble skies (`Daemon.updateSkies`,
  /// decision 0069).
  private(set) var skiesWanted = false
  /// Whether the engine's sessions read them (its last `skies(wanted:)`).
  var skiesWantedByEngine = false
  /// The static location file, watched (`[Position] StaticFile=`).
  var staticFile: StaticFileWatch?

  init(loop: EventLoop, make: @escaping (SourceURI, SourceID, EventLoop, SourceSink) -> FixSource?) {
    self.loop = loop
    self.make = make
  }

  /// `source` joins the set, told what acquisition wants now.
  func add(_ source: FixSource) {
    all.append(source)
    if !receiversActive { source.setActive(false) }
    source.setScanning(beaconScanning)
    if compassClaimed { source.setHeadingWanted(true) }
    source.setSkiesWanted(skiesWanted)
  }

  /// Every source stopped and let go.
  func stopAll() {
    for source in all { source.stop() }
    all.removeAll()
  }

  /// The sources' snapshots, for `status`.
  var snapshots: [SourceSnapshot] { all.map(\.snapshot) }

  /// The replay sources (flow control pauses them).
  var replays: [ReplaySource] { all.compactMap { $0 as? ReplaySource } }

  /// Receivers on or off, applied on the next iteration: the fix that settled acquisition
  /// may be inside a source's read, and a source must not close its descriptor or flush its
  /// decoder from inside its own callback. A later change supersedes one not yet applied.
  func setReceivers(active: Bool) {
    receiversActive = active
    loop.soon { [weak self] in
      guard let self, self.receiversActive == active else { return }
      for source in self.all { source.setActive(active) }
    }
  }

  /// Beacon scanning on or off, on the next iteration for the same reason.
  func setScanning(_ active: Bool) {
    beaconScanning = active
    loop.soon { [weak self] in
      guard let self, self.beaconScanning == active else { return }
      for source in self.all { source.setScanning(active) }
    }
  }

  /// The compass claimed or released, on the next iteration for the same reason.
  func setCompass(claimed: Bool) {
    compassClaimed = claimed
    loop.soon { [weak self] in
      guard let self, self.compassClaimed == claimed else { return }
      for source in self.all { source.setHeadingWanted(claimed) }
    }
  }

  /// Skies assembled or not, on the next iteration for the same reason (a decoder's switch
  /// is not flipped inside its own feed).
  func setSkies(wanted: Bool) {
    skiesWanted = wanted
    loop.soon { [weak self] in
      guard let self, self.skiesWanted == wanted else { return }
      for source in self.all { source.setSkiesWanted(wanted) }
    }
  }
}
