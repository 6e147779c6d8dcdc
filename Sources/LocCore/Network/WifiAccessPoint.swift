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

  /// At most this many access points are read of one scan, all Wi-Fi devices together
  /// (wpa_supplicant keeps 200 a radio by default, its bss_max_count); those published past
  /// it are not read, and counted (`unreadAccessPoints` in status). Each one read is a D-Bus
  /// call and about 100 bytes held until the lookup's query is made.
  public static let scanLimit = 16_384

  /// `aa:bb:cc:dd:ee:ff`, as the geolocate API's `macAddress` takes it.
  public var macAddress: String {
    let digits = Array("0123456789abcdef")
    return bssid.map { String([digits[Int($0 >> 4)], digits[Int($0 & 15)]]) }.joined(separator: ":")
  }

  /// Why it is never sent, nil when it may be: no BSSID of six bytes, a group (multicast)
  /// BSSID, which no access point has (bit 0 of the first byte: IEEE 802's I/G bit), a hidden
  /// network (no SSID), an owner who opted out (`optedOut`), or a locally administered BSSID
  /// (bit 1 of the first byte: randomised or a phone's hotspot, which moves with its owner).
  public var exclusion: Exclusion? {
    guard bssid.count == 6, bssid != [0, 0, 0, 0, 0, 0] else { return .malformed }
    if bssid[0] & 0x01 != 0 { return .groupAddress }
    if ssid.isEmpty || ssid.allSatisfy({ $0 == 0 }) { return .hidden }
    if Self.optsOut(ssid) { return .optedOut }
    if bssid[0] & 0x02 != 0 { return .locallyAdministered }
    return nil
  }

  /// The opt-out words: `_nomap` (Google's, which Mozilla's service and beaconDB honour) and
  /// `_optout` (Microsoft's Wi-Fi Sense).
  static let optOutWords: [[UInt8]] = [Array("_nomap".utf8), Array("_optout".utf8)]

  /// Whether an SSID says its owner opted out: it holds `_nomap` or `_optout` anywhere, in
  /// any case of ASCII letters (`cafe_NOMAP`, `home_nomap ` with a trailing space or NUL,
  /// `home_optout_nomap`, `home_nomap_5G`). The conventions ask for a suffix, but a network
  /// left out by mistake costs a lookup a little accuracy, one sent against its owner's
  /// wish cannot be taken back; so the word anywhere counts, and padding or a band suffix
  /// after it does not hide it. SSIDs are bytes, compared as bytes: no Unicode folding.
  public static func optsOut(_ ssid: [UInt8]) -> Bool {
    let lowered = ssid.map { (0x41...0x5a).contains($0) ? $0 | 0x20 : $0 }
    return optOutWords.contains { word in
      guard lowered.count >= word.count else { return false }
      return (0...(lowered.count - word.count)).contains { start in
        lowered[start..<(start + word.count)].elementsEqual(word)
      }
    }
  }

  /// A BSSID as NetworkManager's `HwAddress` spells it, `AA:BB:CC:DD:EE:FF`: exactly six
  /// pairs of hex digits (either case) joined by colons, 17 bytes; nil for anything else (a
  /// sign, a missing leading zero, another separator, white space).
  public static func bssid(parsing text: String) -> [UInt8]? {
    let bytes = Array(text.utf8)
    guard bytes.count == 17 else { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(6)
    for i in 0..<6 {
      let at = i * 3
      if i > 0, bytes[at - 1] != UInt8(ascii: ":") { return nil }
      guard let high = hexValue(bytes[at]), let low = hexValue(bytes[at + 1]) else { return nil }
      out.append(high << 4 | low)
    }
    return out
  }

  /// Why an access point is left out of a lookup.
  public enum Exclusion: String, Sendable, Hashable, CaseIterable {
    /// Its SSID holds `_nomap` or `_optout` (`optsOut`).
    case optedOut = "nomap"
    /// Its SSID is hidden.
    case hidden
    /// Its BSSID is locally administered.
    case locallyAdministered = "locally-administered"
    /// Its BSSID is a group (multicast or broadcast) address.
    case groupAddress = "group-address"
    /// No usable BSSID.
    case malformed
  }
}
