import LocCore

/// wpa_supplicant's D-Bus API (fi.w1.wpa_supplicant1), what geoclue reads, for machines
/// without NetworkManager: its interfaces (the `Interfaces` property), a passive scan asked
/// of each (Interface.Scan), and once it ended (the interface's ScanDone signal, or after
/// `settle` where none comes) each interface's BSS objects (`BSSs`) with their BSSID, SSID,
/// Signal (dBm), Frequency and Age.
extension WifiScanner {
  static let supplicantService = "fi.w1.wpa_supplicant1"
  static let supplicantPath = "/fi/w1/wpa_supplicant1"
  static let supplicantInterface = "fi.w1.wpa_supplicant1.Interface"
  static let bssInterface = "fi.w1.wpa_supplicant1.BSS"
  /// The errors that mean no one owns the name asked for (and it cannot be activated).
  static let absent: Set<String> = [
    "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
  ]

  /// NetworkManager is absent: asks wpa_supplicant for its interfaces, and each to scan.
  func askSupplicant(_ round: Round) {
    round.supplicant = true
    do {
      try call(
        Self.supplicantPath, Self.properties, "Get", [.string(Self.supplicantService), .string("Interfaces")]
      ) { [weak self] reply in
        guard let self else { return }
        if let error = reply.error {
          let none = Self.absent.contains(error.name)
          self.finish(
            round,
            problem: none
              ? "neither NetworkManager nor wpa_supplicant is on the bus" : "wpa_supplicant: \(error)")
          return
        }
        round.peer = reply.sender
        for interface in (try? reply.readVariantObjectPaths(limit: Self.deviceLimit)) ?? [] {
          if round.readOnly {
            round.toRead.append(interface)
            round.scanned.insert(interface)
            continue
          }
          self.watchScanEnd(interface, round)
          try? self.call(
            interface, Self.supplicantInterface, "Scan",
            build: { m throws(Errno) in try m.appendProperties([("Type", .string("passive"))]) }
          ) { [weak self] _ in
            // A refused scan (one under way, not allowed) is no matter: what it knows is read.
            self?.toRead(interface)
            self?.settleIfDone(round)
          }
        }
        self.settleIfDone(round)
      }
    } catch {
      finish(round, problem: "wpa_supplicant: \(error)")
    }
  }

  /// Reads each interface's BSSs once the scans ended (`readPoints`: every one, up to
  /// `WifiAccessPoint.scanLimit`).
  func readSupplicant(_ interfaces: [String], _ round: Round) {
    for interface in interfaces {
      try? call(interface, Self.properties, "Get", [.string(Self.supplicantInterface), .string("BSSs")]) {
        [weak self] reply in
        var skipped = 0
        let paths = (try? reply.readVariantObjectPaths(limit: round.room, skipped: &skipped)) ?? []
        self?.readPoints(paths, skipped: skipped, round)
      }
    }
    finishIfDone(round)
  }

  /// A BSS object's properties as locd reads them: BSSID (6 bytes), SSID, Signal (dBm, as
  /// wpa_supplicant reports it), Frequency (MHz) and Age (seconds since last seen).
  static func bss(_ reply: BusMessage) -> WifiAccessPoint? {
    guard reply.error == nil, let p = try? reply.readProperties() else { return nil }
    guard case .bytes(let bssid)? = p["BSSID"], bssid.count == 6, case .int16(let signal)? = p["Signal"]
    else {
      return nil
    }
    var ssid: [UInt8] = []
    if case .bytes(let b)? = p["SSID"] { ssid = b }
    var frequency: Int? = nil
    if case .uint16(let f)? = p["Frequency"] { frequency = Int(f) }
    var age: Duration? = nil
    if case .uint32(let a)? = p["Age"] { age = .seconds(Int64(a)) }
    return WifiAccessPoint(bssid: bssid, ssid: ssid, signal: Int(signal), frequency: frequency, age: age)
  }
}
