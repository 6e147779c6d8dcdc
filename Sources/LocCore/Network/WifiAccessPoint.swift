/// One Wi-Fi access point a scan saw (NetworkManager's AccessPoint object, wpa_supplicant's
/// BSS object): what a geolocation lookup may send of it, and why it may not.
public struct WifiAccessPoint: Sendable, Hashable {
  /// The BSSID, six bytes.
  public var bssid: [UInt8]
  /// The SSID's bytes (empty for a hidden network).
  public var ssid: [UInt8]
  /// Signal strength in dBm.
  public var signal: Int
  /// The channel's centre frequency in MHz, if known.
  public var frequency: Int?
  /// How long ago it was last seen, if known.
  public var age: Duration?

  /// An access point.
  public init(bssid: [UInt8], ssid: [UInt8], signal: Int, frequency: Int? = nil, age: Duration? = nil) {
    self.bssid = bssid
    self.ssid = ssid
    self.signal = signal
    self.frequency = frequency
    self.age = age
  }

  /// `aa:bb:cc:dd:ee:ff`, as the geolocate API's `macAddress` takes it.
  public var macAddress: String {
    let digits = Array("0123456789abcdef")
    return bssid.map { String([digits[Int($0 >> 4)], digits[Int($0 & 15)]]) }.joined(separator: ":")
  }

  /// Why it is never sent, nil when it may be: the owner opted out (an SSID ending in
  /// `_nomap`, the convention Google and Mozilla honour), a hidden network (no SSID), a
  /// locally administered BSSID (bit 1 of the first byte: randomised or a phone's hotspot,
  /// which moves with its owner), or no BSSID of six bytes.
  public var exclusion: Exclusion? {
    guard bssid.count == 6, bssid != [0, 0, 0, 0, 0, 0] else { return .malformed }
    if ssid.isEmpty || ssid.allSatisfy({ $0 == 0 }) { return .hidden }
    if ssid.count >= 6, Array(ssid.suffix(6)) == Array("_nomap".utf8) { return .optedOut }
    if bssid[0] & 0x02 != 0 { return .locallyAdministered }
    return nil
  }

  /// Why an access point is left out of a lookup.
  public enum Exclusion: String, Sendable, Hashable, CaseIterable {
    /// Its SSID ends in `_nomap`.
    case optedOut = "nomap"
    /// Its SSID is hidden.
    case hidden
    /// Its BSSID is locally administered.
    case locallyAdministered = "locally-administered"
    /// No usable BSSID.
    case malformed
  }
}
