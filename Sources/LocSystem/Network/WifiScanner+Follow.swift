import LocCore

/// Following the Wi-Fi scene without scanning (decision 0066): while the engine asks
/// (`Effect.followWifi`), the scanner listens to what NetworkManager and wpa_supplicant
/// publish anyway — NetworkManager's Device.Wireless AccessPointAdded and AccessPointRemoved
/// and its LastScan and ActiveAccessPoint properties, wpa_supplicant's Interface BSSAdded,
/// BSSRemoved and ScanDone and its CurrentBSS property — and after a burst of them reads the
/// access points they publish, asking no scan (`scan(readOnly:)`), for the engine
/// (`wifiPublished`). A scan of another program (NetworkManager's own, an applet's) is seen
/// the same way. The signals are not trusted for anything but "look again": what is read
/// comes from the service's own objects, and reads are at most one per `followGap`.
extension WifiScanner {
  /// The signals of a burst are read together once none came for this long.
  static let followSettle: Duration = .seconds(1)
  /// At least this long between the starts of two reads (a peer that signals without end
  /// costs a read every two seconds at most).
  static let followGap: Duration = .seconds(2)

  /// What following keeps: the matches, the read's timer, whether a signal came since the
  /// last read started, when it started, and where the scenes go.
  final class Follower {
    var matches: [BusMatch] = []
    var timer: Timer?
    var dirty = false
    var lastRead: UInt64?
    let published: (WifiScanOutcome) -> Void
    init(_ published: @escaping (WifiScanOutcome) -> Void) { self.published = published }
  }

  /// Starts (`published` gets each scene read) or stops following.
  func follow(_ on: Bool, published: @escaping (WifiScanOutcome) -> Void) {
    guard on else {
      follower = nil
      return
    }
    guard follower == nil else { return }
    let follower = Follower(published)
    self.follower = follower
    do {
      if bus == nil { bus = try BusConnection.system(on: loop) }
    } catch {
      bus = nil
      return
    }
    let wireless = Self.wirelessInterface
    let supplicant = Self.supplicantInterface
    let rules = [
      "type='signal',interface='\(wireless)',member='AccessPointAdded'",
      "type='signal',interface='\(wireless)',member='AccessPointRemoved'",
      "type='signal',interface='\(Self.properties)',member='PropertiesChanged',arg0='\(wireless)'",
      "type='signal',interface='\(supplicant)',member='BSSAdded'",
      "type='signal',interface='\(supplicant)',member='BSSRemoved'",
      "type='signal',interface='\(supplicant)',member='ScanDone'",
      "type='signal',interface='\(Self.properties)',member='PropertiesChanged',arg0='\(supplicant)'",
    ]
    for rule in rules {
      if let match = try? bus?.match(rule, handler: { [weak self] m in self?.heard(m) }) {
        follower.matches.append(match)
      }
    }
  }

  /// A signal of the scene: a read after the burst settles. A PropertiesChanged counts only
  /// when it names a property of the scene.
  private func heard(_ m: BusMessage) {
    guard let follower else { return }
    if m.member == "PropertiesChanged" {
      var relevant = false
      do {
        _ = try m.readText()
        try m.forEachProperty { name throws(Errno) in
          if ["LastScan", "ActiveAccessPoint", "AccessPoints", "CurrentBSS", "BSSs"].contains(name) {
            relevant = true
          }
          try m.skipVariant()
        }
      } catch {
        return
      }
      guard relevant else { return }
    }
    follower.dirty = true
    armFollowRead(after: Self.followSettle)
  }

  /// Reads in `delay` (later if the last read started less than `followGap` before).
  private func armFollowRead(after delay: Duration) {
    guard let follower else { return }
    let now = loop.monotonicMicroseconds
    var at = now + UInt64(delay.seconds * 1_000_000)
    if let last = follower.lastRead { at = max(at, last + UInt64(Self.followGap.seconds * 1_000_000)) }
    if follower.timer == nil {
      follower.timer = try? loop.timer(clock: .monotonic, accuracyMicroseconds: 50_000) { [weak self] in
        self?.readPublished()
      }
    }
    follower.timer?.arm(atMicroseconds: at)
  }

  /// Reads what is published now, unless a scan or read is under way (its end reads again
  /// if a signal came meanwhile).
  private func readPublished() {
    guard let follower, follower.dirty, round == nil else { return }
    follower.dirty = false
    follower.lastRead = loop.monotonicMicroseconds
    scan(readOnly: true) { [weak self] outcome in
      guard let self, let follower = self.follower else { return }
      if outcome.problem == nil { follower.published(outcome) }
    }
  }

  /// A scan or read ended: a signal that came during it is read now.
  func roundEnded() {
    guard let follower, follower.dirty else { return }
    armFollowRead(after: .zero)
  }
}
