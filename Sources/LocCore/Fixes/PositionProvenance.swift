/// What kind of source a position came from (docs/PROTOCOL.md, "position": `provenance`).
/// The tier says how fresh the answer is; this says what measured or set it.
public enum PositionProvenance: String, Sendable, Hashable, CaseIterable {
  /// A satellite receiver (gpsd, NMEA, serial, replay).
  case gnss
  /// Wi-Fi access points resolved by a geolocation service.
  case wifi
  /// The cells a modem is registered with, resolved by a geolocation service (a cell is
  /// hundreds of metres to kilometres wide).
  case cell
  /// The machine's public address resolved by a geolocation service (city level).
  case ip
  /// The static file (`[Position] StaticFile=`, geoclue's `/etc/geolocation` format).
  case staticFile = "static"
  /// The location set with `locctl set-location`.
  case manual
  /// A measured position no longer fresh: the last known one.
  case cached

  /// The word with its article, for sentences: "an ip position", "a wifi position".
  public var withArticle: String {
    switch self {
    case .ip: "an ip"
    default: "a \(rawValue)"
    }
  }
}
