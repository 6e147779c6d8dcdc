import LocCore

/// Wi-Fi scan results from NetworkManager on the system bus (on Bus/): the wireless devices
/// (GetDevices, DeviceType 2), a scan asked of each (Device.Wireless.RequestScan), and once it
/// has ended, every access point they know (GetAllAccessPoints, then each AccessPoint's
/// HwAddress, Strength, Frequency, Ssid and LastSeen; every one published, up to
/// `WifiAccessPoint.scanLimit` in all, read `readWindow` at a time). A scan has ended when the device's
/// LastScan changes (PropertiesChanged; NetworkManager 1.12 and later), or after `settle`
/// (`[Network] ScanWait=`) where no change comes: an older NetworkManager, a scan refused.
/// Where NetworkManager is not on the bus, from wpa_supplicant instead
/// (WifiScanner+Supplicant.swift). Only when the engine asks (`scanWifi`: acquisition wants a
/// fix); never in the background. One scan at a time; the connection is made at the first
/// and kept.
final class WifiScanner {
  static let service = "org.freedesktop.NetworkManager"
  static let managerPath = "/org/freedesktop/NetworkManager"
  static let deviceInterface = "org.freedesktop.NetworkManager.Device"
  static let wirelessInterface = "org.freedesktop.NetworkManager.Device.Wireless"
  static let accessPointInterface = "org.freedesktop.NetworkManager.AccessPoint"
  static let properties = "org.freedesktop.DBus.Properties"
  /// NM_DEVICE_TYPE_WIFI (NetworkManager's nm-dbus-interface.h).
  static let wifiDeviceType: UInt32 = 2
  /// Most devices read from one scan.
  static let deviceLimit = 16
  /// Most access points read at once: each is a call, and dbus-daemon refuses a connection's
  /// calls past its max_replies_per_connection (128 on the system bus, dbus-daemon(1)).
  static let readWindow = 32
  /// The longest the access points are read, once the scan ended: what is not read by then
  /// is counted as unread and the lookup made of the rest (each call may wait 5 s for its
  /// answer, so a peer that answers none would hold the scan for minutes).
  static let readTimeout: Duration = .seconds(30)

  let loop: EventLoop
  /// The longest wait for a scan whose end is not signalled (`[Network] ScanWait=`).
  var settle: Duration
  var bus: BusConnection?
  /// The scan under way: what it found so far and its callback.
  private(set) var round: Round?
  private var timer: Timer?
  /// The matches for the scan's end (LastScan changes, ScanDone), kept while it runs.
  private var scanEnds: [BusMatch] = []

  /// One scan's bookkeeping.
  final class Round {
    /// Whom it asks: NetworkManager, or wpa_supplicant where NetworkManager is absent.
    var supplicant = false
    /// Only reads what the devices publish, asking no scan (following the scene).
    var readOnly = false
    /// The unique name of the service that answered (the only sender of its end signals).
    var peer: String?
    var pending = 0
    /// The devices whose scan was asked for, read once their scans ended.
    var toRead: [String] = []
    /// The devices whose scan is known to have ended.
    var scanned: Set<String> = []
    /// Whether the access points are being read (the wait is over).
    var reading = false
    var found: [WifiAccessPoint] = []
    /// The objects of access points (or BSSs) published and not read yet.
    var toReadPoints: [String] = []
    /// Access points published past `WifiAccessPoint.scanLimit`, not read.
    var unread = 0
    var problem: String?
    let done: (WifiScanOutcome) -> Void
    init(_ done: @escaping (WifiScanOutcome) -> Void) { self.done = done }
    /// Room for more access points to read.
    var room: Int { max(0, WifiAccessPoint.scanLimit - found.count - toReadPoints.count - readsInFlight) }
    /// Access points asked for and not answered yet.
    var readsInFlight = 0
  }

  init(loop: EventLoop, settle: Duration = .seconds(3)) {
    self.loop = loop
    self.settle = settle
  }

  /// What following the scene keeps (WifiScanner+Follow.swift).
  var follower: Follower?

  /// Scans; `done` is called once on the loop. `readOnly`: asks no scan, reads what the
  /// devices publish now.
  func scan(readOnly: Bool = false, _ done: @escaping (WifiScanOutcome) -> Void) {
    guard round == nil else { return }
    let round = Round(done)
    round.readOnly = readOnly
    self.round = round
    do {
      if bus == nil { bus = try BusConnection.system(on: loop) }
      try call(Self.managerPath, Self.service, "GetDevices") { [weak self] reply in
        self?.devices(reply, round)
      }
    } catch {
      bus = nil
      finish(round, problem: "no system bus (\(error))")
    }
  }

  /// A method call of this scan on NetworkManager (the round waits for its answer).
  func call(
    _ path: String, _ interface: String, _ member: String, _ arguments: [BusMessage.Value] = [],
    build: ((BusMessage) throws(Errno) -> Void)? = nil, _ done: @escaping (BusMessage) -> Void
  ) throws(Errno) {
    guard let bus else { throw Errno(call: "NetworkManager", code: Errno.invalidArgument) }
    let destination = round?.supplicant == true ? Self.supplicantService : Self.service
    let message = try BusMessage.methodCall(
      on: bus, destination: destination, path: path, interface: interface, member: member)
    for argument in arguments { try message.append(argument) }
    try build?(message)
    round?.pending += 1
    try bus.call(message, timeoutMicroseconds: 5_000_000) { [weak self] reply in
      self?.round?.pending -= 1
      done(reply)
    }
  }

  private func devices(_ reply: BusMessage, _ round: Round) {
    if let error = reply.error {
      // No NetworkManager on the bus: wpa_supplicant, if it is there.
      if Self.absent.contains(error.name) {
        askSupplicant(round)
      } else {
        finish(round, problem: "NetworkManager: \(error)")
      }
      return
    }
    round.peer = reply.sender
    guard let paths = try? reply.readObjectPaths(limit: Self.deviceLimit) else {
      finish(round, problem: "NetworkManager: GetDevices gave no object paths")
      return
    }
    for path in paths {
      try? call(
        path, Self.properties, "Get", [.string(Self.deviceInterface), .string("DeviceType")]
      ) { [weak self] reply in
        guard reply.error == nil, let type = try? reply.readVariantUInt32(), type == Self.wifiDeviceType
        else {
          self?.settleIfDone(round)
          return
        }
        if round.readOnly {
          round.toRead.append(path)
          round.scanned.insert(path)
          self?.settleIfDone(round)
        } else {
          self?.requestScan(path, round)
        }
      }
    }
    settleIfDone(round)
  }

  /// Asks `device` to scan (an error, such as "scanning not allowed" right after another
  /// scan, is no matter: what the device knows is read anyway), then reads once it ended.
  private func requestScan(_ device: String, _ round: Round) {
    watchScanEnd(device, round)
    do {
      try call(
        device, Self.wirelessInterface, "RequestScan",
        build: { m throws(Errno) in try m.appendProperties([]) }
      ) {
        [weak self] _ in
        self?.toRead(device)
        self?.settleIfDone(round)
      }
    } catch {
      settleIfDone(round)
    }
  }

  /// `device` is read once its scan ended.
  func toRead(_ device: String) { round?.toRead.append(device) }

  /// Watches for the end of the scan of `path` (installed before the scan is asked for, so
  /// the signal cannot come first): NetworkManager's PropertiesChanged of Device.Wireless
  /// with LastScan, wpa_supplicant's ScanDone. The rules name no sender (signals carry the
  /// unique name); `scanEnded` takes only what the service that answered sent.
  func watchScanEnd(_ path: String, _ round: Round) {
    let rule =
      round.supplicant
      ? "type='signal',path='\(path)',interface='\(Self.supplicantInterface)',member='ScanDone'"
      : "type='signal',path='\(path)',interface='\(Self.properties)',member='PropertiesChanged',"
        + "arg0='\(Self.wirelessInterface)'"
    if let match = try? bus?.match(rule, handler: { [weak self] m in self?.scanEnded(path, m, round) }) {
      scanEnds.append(match)
    }
  }

  private func scanEnded(_ path: String, _ m: BusMessage, _ round: Round) {
    guard round === self.round, !round.reading, m.sender != nil, m.sender == round.peer else { return }
    if !round.supplicant {
      var lastScan = false
      do {
        guard try m.readText() == Self.wirelessInterface else { return }
        try m.forEachProperty { name throws(Errno) in
          if name == "LastScan" { lastScan = true }
          try m.skipVariant()
        }
      } catch {
        return
      }
      guard lastScan else { return }
    }
    round.scanned.insert(path)
    settleIfDone(round)
  }

  /// When every call of the first stage is answered: reads at once if every scan asked for
  /// has ended, else waits for their ends, `settle` at most.
  func settleIfDone(_ round: Round) {
    guard round === self.round, round.pending == 0, !round.reading else { return }
    guard !round.toRead.isEmpty else {
      finish(round, problem: round.problem ?? "NetworkManager has no Wi-Fi device")
      return
    }
    if round.toRead.allSatisfy(round.scanned.contains) {
      read(round)
      return
    }
    guard timer == nil else { return }
    do {
      let timer = try loop.timer(clock: .monotonic, accuracyMicroseconds: 100_000) { [weak self] in
        self?.read(round)
      }
      timer.arm(atMicroseconds: loop.monotonicMicroseconds + UInt64(max(0, settle.seconds) * 1_000_000))
      self.timer = timer
    } catch {
      read(round)
    }
  }

  private func read(_ round: Round) {
    guard round === self.round, !round.reading else { return }
    round.reading = true
    timer = nil
    scanEnds = []
    armReadDeadline(round)
    let devices = round.toRead
    if round.supplicant {
      readSupplicant(devices, round)
      return
    }
    for device in devices {
      try? call(device, Self.wirelessInterface, "GetAllAccessPoints") { [weak self] reply in
        var skipped = 0
        let paths = (try? reply.readObjectPaths(limit: round.room, skipped: &skipped)) ?? []
        self?.readPoints(paths, skipped: skipped, round)
      }
    }
    finishIfDone(round)
  }

  /// A device published `paths` (and `skipped` more than there was room for): each is read,
  /// `readWindow` at a time.
  func readPoints(_ paths: [String], skipped: Int, _ round: Round) {
    guard round === self.round else { return }
    round.unread += skipped
    round.toReadPoints += paths
    pump(round)
    finishIfDone(round)
  }

  /// Ends the reading after `readTimeout`: the access points not read yet are counted as
  /// unread, the scan reports what was.
  private func armReadDeadline(_ round: Round) {
    guard
      let timer = try? loop.timer(
        clock: .monotonic, accuracyMicroseconds: 100_000,
        { [weak self] in
          guard let self, round === self.round else { return }
          round.unread += round.toReadPoints.count + round.readsInFlight
          round.toReadPoints = []
          self.finish(round, problem: nil)
        })
    else { return }
    let seconds = UInt64(Self.readTimeout.components.seconds)
    timer.arm(atMicroseconds: loop.monotonicMicroseconds + seconds * 1_000_000)
    self.timer = timer
  }

  /// Asks for the next access points' properties while fewer than `readWindow` are asked.
  private func pump(_ round: Round) {
    guard round === self.round else { return }
    let interface = round.supplicant ? Self.bssInterface : Self.accessPointInterface
    while round.readsInFlight < Self.readWindow, let path = round.toReadPoints.popLast() {
      round.readsInFlight += 1
      do {
        try call(path, Self.properties, "GetAll", [.string(interface)]) { [weak self] reply in
          round.readsInFlight -= 1
          let point = round.supplicant ? WifiScanner.bss(reply) : WifiScanner.accessPoint(reply)
          if let point { round.found.append(point) }
          self?.pump(round)
          self?.finishIfDone(round)
        }
      } catch {
        round.readsInFlight -= 1
      }
    }
  }

  func finishIfDone(_ round: Round) {
    guard round === self.round, round.pending == 0, round.toReadPoints.isEmpty else { return }
    finish(round, problem: nil)
  }

  func finish(_ round: Round, problem: String?) {
    guard round === self.round else { return }
    self.round = nil
    timer = nil
    scanEnds = []
    let outcome = WifiScanOutcome(accessPoints: round.found, problem: problem, unread: round.unread)
    loop.soon { [weak self] in
      round.done(outcome)
      self?.roundEnded()
    }
  }

  /// An AccessPoint's properties as locd reads them: the BSSID, the signal in dBm (from
  /// NetworkManager's 0–100 strength, which it makes linearly of -100…-40 dBm), the
  /// frequency, the SSID and how long ago it was seen (LastSeen, CLOCK_BOOTTIME seconds).
  static func accessPoint(_ reply: BusMessage) -> WifiAccessPoint? {
    guard reply.error == nil, let p = try? reply.readProperties() else { return nil }
    guard case .string(let hw)? = p["HwAddress"], let bssid = WifiScanner.bssid(hw),
      case .byte(let strength)? = p["Strength"]
    else { return nil }
    var ssid: [UInt8] = []
    if case .bytes(let b)? = p["Ssid"] { ssid = b }
    var frequency: Int? = nil
    if case .uint32(let f)? = p["Frequency"] { frequency = Int(f) }
    var age: Duration? = nil
    if case .int32(let seen)? = p["LastSeen"], seen >= 0 {
      let now = Clocks.microseconds(.boottime) / 1_000_000
      age = .seconds(max(0, Int64(now) - Int64(seen)))
    }
    return WifiAccessPoint(
      bssid: bssid, ssid: ssid, signal: -100 + Int(min(strength, 100)) * 3 / 5, frequency: frequency, age: age
    )
  }

  /// `AA:BB:CC:DD:EE:FF` as six bytes (`WifiAccessPoint.bssid(parsing:)`: strictly six hex
  /// pairs).
  static func bssid(_ text: String) -> [UInt8]? { WifiAccessPoint.bssid(parsing: text) }
}

/// What one scan found: the access points read, why there are none (no bus, no Wi-Fi
/// device), and how many were published beyond `WifiAccessPoint.scanLimit` and not read.
struct WifiScanOutcome {
  var accessPoints: [WifiAccessPoint]
  var problem: String?
  var unread: Int
}
