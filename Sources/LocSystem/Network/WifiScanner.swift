import LocCore

/// Wi-Fi scan results from NetworkManager on the system bus (on Bus/): the wireless devices
/// (GetDevices, DeviceType 2), a scan asked of each (Device.Wireless.RequestScan), and after
/// it has had `settle` to run, every access point they know (GetAllAccessPoints, then each
/// AccessPoint's HwAddress, Strength, Frequency, Ssid and LastSeen). Where NetworkManager is
/// not on the bus, from wpa_supplicant instead (WifiScanner+Supplicant.swift). Only when the
/// engine asks (`scanWifi`: acquisition wants a fix); never in the background. One scan at a
/// time; the connection is made at the first and kept.
final class WifiScanner {
  static let service = "org.freedesktop.NetworkManager"
  static let managerPath = "/org/freedesktop/NetworkManager"
  static let deviceInterface = "org.freedesktop.NetworkManager.Device"
  static let wirelessInterface = "org.freedesktop.NetworkManager.Device.Wireless"
  static let accessPointInterface = "org.freedesktop.NetworkManager.AccessPoint"
  static let properties = "org.freedesktop.DBus.Properties"
  /// NM_DEVICE_TYPE_WIFI (NetworkManager's nm-dbus-interface.h).
  static let wifiDeviceType: UInt32 = 2
  /// Most devices and access points read from one scan.
  static let deviceLimit = 16
  static let accessPointLimit = 256

  private let loop: EventLoop
  private let settle: Duration
  private var bus: BusConnection?
  /// The scan under way: what it found so far and its callback.
  private(set) var round: Round?
  private var timer: Timer?

  /// One scan's bookkeeping.
  final class Round {
    /// Whom it asks: NetworkManager, or wpa_supplicant where NetworkManager is absent.
    var supplicant = false
    var pending = 0
    var found: [WifiAccessPoint] = []
    var problem: String?
    let done: ([WifiAccessPoint], String?) -> Void
    init(_ done: @escaping ([WifiAccessPoint], String?) -> Void) { self.done = done }
  }

  init(loop: EventLoop, settle: Duration = .seconds(3)) {
    self.loop = loop
    self.settle = settle
  }

  /// Scans; `done(accessPoints, problem)` is called once on the loop.
  func scan(_ done: @escaping ([WifiAccessPoint], String?) -> Void) {
    guard round == nil else { return }
    let round = Round(done)
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
        self?.requestScan(path, round)
      }
    }
    settleIfDone(round)
  }

  /// Asks `device` to scan (an error, such as "scanning not allowed" right after another
  /// scan, is no matter: what the device knows is read anyway), then reads after `settle`.
  private func requestScan(_ device: String, _ round: Round) {
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

  /// The wireless devices whose scan was asked for, read once the scans had time.
  private var devicesToRead: [String] = []

  /// `device` is read once the scans had time.
  func toRead(_ device: String) { devicesToRead.append(device) }

  /// When every call of the first stage is answered: wait `settle`, then read.
  func settleIfDone(_ round: Round) {
    guard round === self.round, round.pending == 0 else { return }
    guard !devicesToRead.isEmpty else {
      finish(round, problem: round.problem ?? "NetworkManager has no Wi-Fi device")
      return
    }
    let devices = devicesToRead
    devicesToRead = []
    do {
      let timer = try loop.timer(clock: .monotonic, accuracyMicroseconds: 100_000) { [weak self] in
        self?.read(devices, round)
      }
      timer.arm(atMicroseconds: loop.monotonicMicroseconds + UInt64(max(0, settle.seconds) * 1_000_000))
      self.timer = timer
    } catch {
      read(devices, round)
    }
  }

  private func read(_ devices: [String], _ round: Round) {
    timer = nil
    if round.supplicant {
      readSupplicant(devices, round)
      return
    }
    for device in devices {
      try? call(device, Self.wirelessInterface, "GetAllAccessPoints") { [weak self] reply in
        guard let self else { return }
        for path in (try? reply.readObjectPaths(limit: Self.accessPointLimit)) ?? [] {
          try? self.call(path, Self.properties, "GetAll", [.string(Self.accessPointInterface)]) {
            [weak self] reply in
            if let ap = WifiScanner.accessPoint(reply), round.found.count < Self.accessPointLimit {
              round.found.append(ap)
            }
            self?.finishIfDone(round)
          }
        }
        self.finishIfDone(round)
      }
    }
    finishIfDone(round)
  }

  func finishIfDone(_ round: Round) {
    guard round === self.round, round.pending == 0 else { return }
    finish(round, problem: nil)
  }

  func finish(_ round: Round, problem: String?) {
    guard round === self.round else { return }
    self.round = nil
    let found = round.found
    loop.soon { round.done(found, problem) }
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

  /// `AA:BB:CC:DD:EE:FF` as six bytes.
  static func bssid(_ text: String) -> [UInt8]? {
    let parts = text.split(separator: ":")
    guard parts.count == 6 else { return nil }
    let bytes = parts.compactMap { $0.count == 2 ? UInt8($0, radix: 16) : nil }
    return bytes.count == 6 ? bytes : nil
  }
}
