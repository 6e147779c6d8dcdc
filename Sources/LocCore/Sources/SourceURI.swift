/// Where fixes come from, as configured by a URI (`--source`, `Source=`).
public enum SourceURI: Hashable, Sendable, CustomStringConvertible {
  /// Replay pace of a log file.
  public enum Speed: Hashable, Sendable {
    /// As fast as possible.
    case max
    /// `factor` times real time (1 = real time).
    case factor(Double)
  }

  /// Serial line speed.
  public enum Baud: Hashable, Sendable {
    /// Try 4800, 9600, 38400 and 115200 until NMEA comes through.
    case auto
    /// A fixed speed.
    case fixed(Int)
  }

  /// `replay:PATH?speed=1|N|max&loop=1`: plays a log file paced by its own timestamps.
  case replay(path: String, speed: Speed, loop: Bool)
  /// `replay:PATH.btsnoop?speed=1|N|max&loop=1`: plays the beacon advertisements of an HCI
  /// capture (btsnoop) paced by its timestamps (docs/BEACONS.md).
  case beaconReplay(path: String, speed: Speed, loop: Bool)
  /// `gpsd://HOST:PORT[?nmea=1]`: a gpsd client (JSON watch, or raw NMEA).
  case gpsd(host: String, port: Int, nmea: Bool)
  /// `nmea+tcp://HOST:PORT`: connects and reads NMEA.
  case nmeaTCP(host: String, port: Int)
  /// `nmea+tcp-listen://ADDR:PORT`: accepts connections that send NMEA (`//:PORT`: loopback).
  case nmeaTCPListen(address: String, port: Int)
  /// `nmea+udp://ADDR:PORT`: receives NMEA datagrams (`//:PORT`: loopback).
  case nmeaUDP(address: String, port: Int)
  /// `nmea+unix-listen:///PATH`: a Unix stream socket at PATH that accepts connections that
  /// send NMEA, each peer's uid checked (SO_PEERCRED).
  case nmeaUnixListen(path: String)
  /// `serial:/dev/ttyUSB0?baud=auto|N`: a receiver on a serial line.
  case serial(path: String, baud: Baud)
  /// `bluez:` (BlueZ's default adapter) or `bluez:hciN`: beacon advertisements that BlueZ
  /// reports on the system bus (docs/BEACONS.md, "The bluez: source").
  case bluez(adapter: String?)
  /// `modem:` (every modem) or `modem:EQUIPMENT-ID` (the one whose EquipmentIdentifier it
  /// is): the GNSS of a modem as ModemManager gives it on the system bus, its NMEA traces
  /// decoded like any receiver's (docs/SOURCES.md, "The modem: source").
  case modem(equipment: String?)
  /// `compass:`: the heading of the device's compass as iio-sensor-proxy gives it on the
  /// system bus (net.hadess.SensorProxy.Compass), claimed only while a session wants heading
  /// (docs/SOURCES.md, "The compass: source"). No fixes.
  case compass

  /// The address listening sources bind when the URI gives none (`nmea+udp://:10110`):
  /// loopback, so nothing is exposed to the network unless asked for.
  public static let loopback = "127.0.0.1"
  /// gpsd's default port (gpsd(8)).
  public static let gpsdDefaultPort = 2947
  /// The source used when none is configured.
  public static let defaultSource = SourceURI.gpsd(host: "127.0.0.1", port: gpsdDefaultPort, nmea: false)
  /// gpsd's control socket, which gpsd.socket (`ListenStream=/run/gpsd.sock`) and Debian's
  /// gpsd.service (`-F /var/run/gpsd.sock`) create as gpsd's port opens: its appearing is how
  /// the default source learns that gpsd has started.
  public static let gpsdControlSocket = "/run/gpsd.sock"
  /// Serial speeds tried by `baud=auto`, most common for GNSS receivers first.
  public static let autoBaudRates = [9600, 4800, 38400, 115200]

  /// Why a URI was rejected.
  public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, naming the URI.
    public var description: String
  }

  /// Parses a source URI.
  public init(parsing text: String) throws(ParseError) {
    var parts = try URIParts(text)
    switch parts.scheme {
    case "replay": self = try SourceURI.replay(&parts)
    case "gpsd":
      try parts.checkQuery(["nmea"])
      let (host, port) = try parts.hostPort(defaultPort: SourceURI.gpsdDefaultPort)
      self = .gpsd(host: host, port: port, nmea: try parts.flag("nmea"))
    case "nmea+tcp":
      try parts.checkQuery([])
      let (host, port) = try parts.hostPort(defaultPort: nil)
      self = .nmeaTCP(host: host, port: port)
    case "nmea+tcp-listen":
      try parts.checkQuery([])
      let (host, port) = try parts.hostPort(defaultPort: nil, defaultHost: SourceURI.loopback)
      self = .nmeaTCPListen(address: host, port: port)
    case "nmea+udp":
      try parts.checkQuery([])
      let (host, port) = try parts.hostPort(defaultPort: nil, defaultHost: SourceURI.loopback)
      self = .nmeaUDP(address: host, port: port)
    case "nmea+unix-listen": self = try SourceURI.unixListen(&parts)
    case "serial": self = try SourceURI.serial(&parts)
    case "bluez":
      try parts.checkQuery([])
      guard !parts.rest.isEmpty else {
        self = .bluez(adapter: nil)
        return
      }
      // BlueZ names adapters hciN after the kernel's index (/org/bluez/hciN).
      let digits = parts.rest.dropFirst(3)
      guard parts.rest.hasPrefix("hci"), !digits.isEmpty, digits.count <= 5,
        digits.allSatisfy({ $0.isASCII && $0.isNumber })
      else { throw parts.fail("expected bluez: or bluez:hciN") }
      self = .bluez(adapter: parts.rest)
    case "modem": self = try SourceURI.modem(&parts)
    case "compass":
      try parts.checkQuery([])
      guard parts.rest.isEmpty else { throw parts.fail("expected compass: (iio-sensor-proxy's compass)") }
      self = .compass
    default:
      throw parts.fail(
        "unknown scheme '\(parts.scheme)' (replay, gpsd, nmea+tcp, nmea+tcp-listen, nmea+udp, "
          + "nmea+unix-listen, serial, bluez, modem, compass)")
    }
  }

  /// `replay:PATH?speed=...&loop=...`.
  private static func replay(_ parts: inout URIParts) throws(ParseError) -> SourceURI {
    try parts.checkQuery(["speed", "loop"])
    guard !parts.rest.isEmpty else { throw parts.fail("missing file path") }
    var speed = Speed.factor(1)
    if let s = parts.query["speed"] {
      if s == "max" {
        speed = .max
      } else if let f = Double(s), f > 0, f.isFinite {
        speed = .factor(f)
      } else {
        throw parts.fail("speed must be a positive number or 'max'")
      }
    }
    let loop = try parts.flag("loop")
    // A capture's name says what it is: `btmon -w` and Android write `*.btsnoop` (or
    // `btsnoop_hci.log`, which has to be renamed or linked for locd to read it as one).
    if parts.rest.hasSuffix(".btsnoop") { return .beaconReplay(path: parts.rest, speed: speed, loop: loop) }
    return .replay(path: parts.rest, speed: speed, loop: loop)
  }

  /// Longest socket path: sun_path holds 108 bytes with the NUL (unix(7)).
  public static let maxSocketPathBytes = 107

  /// `nmea+unix-listen:///PATH`: an absolute path that fits a sockaddr_un.
  private static func unixListen(_ parts: inout URIParts) throws(ParseError) -> SourceURI {
    try parts.checkQuery([])
    guard parts.rest.hasPrefix("///") else { throw parts.fail("expected nmea+unix-listen:///ABSOLUTE/PATH") }
    let path = String(parts.rest.dropFirst(2))
    guard path.utf8.count <= maxSocketPathBytes else {
      throw parts.fail("socket path longer than \(maxSocketPathBytes) bytes")
    }
    guard !path.hasSuffix("/"), !path.split(separator: "/").contains(where: { $0 == ".." }) else {
      throw parts.fail("expected a socket file path without '..'")
    }
    return .nmeaUnixListen(path: path)
  }

  /// `serial:PATH?baud=...`.
  private static func serial(_ parts: inout URIParts) throws(ParseError) -> SourceURI {
    try parts.checkQuery(["baud"])
    guard parts.rest.hasPrefix("/") else { throw parts.fail("expected an absolute device path") }
    var baud = Baud.auto
    if let b = parts.query["baud"], b != "auto" {
      guard let n = Int(b),
        [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800].contains(n)
      else { throw parts.fail("baud must be auto or a standard rate") }
      baud = .fixed(n)
    }
    return .serial(path: parts.rest, baud: baud)
  }

  /// The longest equipment id taken: an IMEI has 15 digits, a MEID 14 hex digits; ModemManager
  /// makes one up as a SHA-1 in hex (40) for modems that report none.
  public static let maxEquipmentIDLength = 64

  /// `modem:` or `modem:ID`, ID letters, digits, `.`, `-`, `_` (what ModemManager's
  /// EquipmentIdentifier holds).
  private static func modem(_ parts: inout URIParts) throws(ParseError) -> SourceURI {
    try parts.checkQuery([])
    guard !parts.rest.isEmpty else { return .modem(equipment: nil) }
    guard parts.rest.utf8.count <= maxEquipmentIDLength,
      parts.rest.utf8.allSatisfy({ b in
        (b >= 0x30 && b <= 0x39) || ((b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A) || b == 0x2D || b == 0x2E
          || b == 0x5F
      })
    else { throw parts.fail("expected modem: or modem:EQUIPMENT-ID (letters, digits, '.', '-', '_')") }
    return .modem(equipment: parts.rest)
  }

  /// Whether the source gives beacon advertisements rather than fixes.
  public var isBeaconSource: Bool {
    switch self {
    case .beaconReplay, .bluez: return true
    default: return false
    }
  }

  /// The URI, normalised.
  public var description: String {
    func authority(_ host: String, _ port: Int) -> String {
      host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
    switch self {
    case .replay(let path, let speed, let loop), .beaconReplay(let path, let speed, let loop):
      let s: String
      switch speed {
      case .max: s = "max"
      case .factor(let f): s = f == f.rounded() && f < 1e15 ? String(Int64(f)) : String(f)
      }
      return "replay:\(path)?speed=\(s)&loop=\(loop ? 1 : 0)"
    case .gpsd(let host, let port, let nmea):
      return "gpsd://\(authority(host, port))" + (nmea ? "?nmea=1" : "")
    case .nmeaTCP(let host, let port): return "nmea+tcp://\(authority(host, port))"
    case .nmeaTCPListen(let a, let port): return "nmea+tcp-listen://\(authority(a, port))"
    case .nmeaUDP(let a, let port): return "nmea+udp://\(authority(a, port))"
    case .nmeaUnixListen(let path): return "nmea+unix-listen://\(path)"
    case .serial(let path, let baud):
      switch baud {
      case .auto: return "serial:\(path)?baud=auto"
      case .fixed(let n): return "serial:\(path)?baud=\(n)"
      }
    case .bluez(let adapter): return "bluez:\(adapter ?? "")"
    case .modem(let equipment): return "modem:\(equipment ?? "")"
    case .compass: return "compass:"
    }
  }
}

extension SourceURI {
  /// Who can put fixes into the source (docs/PRIVACY.md, "Threat model"): a device or a file
  /// named in root's configuration, and a server on loopback that the configuration names
  /// (gpsd), are `system`; a UDP port or TCP listener on loopback, which any local user can
  /// send to, is `localUsers`; anything bound to or reached over another address is `network`.
  /// A Unix listener without `AllowUsers=`/`AllowGroups=` admits only root and locd (its
  /// socket file is mode 0600): `system`. `trust(peersRestricted:)` gives the rank with them.
  public var trust: SourceTrust { trust(peersRestricted: false) }

  /// The rank when `AllowUsers=` or `AllowGroups=` is set (`peersRestricted`): a listener then
  /// admits only peers whose uid it checked, `allowedUsers` (loopback TCP, where the uid comes
  /// from NETLINK_SOCK_DIAG, and Unix sockets, where it comes from SO_PEERCRED).
  public func trust(peersRestricted: Bool) -> SourceTrust {
    switch self {
    case .nmeaUnixListen: return peersRestricted ? .allowedUsers : .system
    case .nmeaTCPListen(let address, _) where peersRestricted && SourceURI.isLoopback(address):
      return .allowedUsers
    default: return fixedTrust
    }
  }

  /// The rank of sources whose peers are not checked.
  private var fixedTrust: SourceTrust {
    switch self {
    // BlueZ is root's daemon on the system bus; what it reports comes from radios in range,
    // but a beacon source gives no fixes, so its trust ranks nothing.
    // ModemManager too; the modem is a device of the machine, as a serial receiver is.
    // iio-sensor-proxy too; a compass gives no fixes.
    case .replay, .beaconReplay, .serial, .nmeaUnixListen, .bluez, .modem, .compass: return .system
    case .gpsd(let host, _, _), .nmeaTCP(let host, _):
      return SourceURI.isLoopback(host) ? .system : .network
    case .nmeaTCPListen(let address, _), .nmeaUDP(let address, _):
      return SourceURI.isLoopback(address) ? .localUsers : .network
    }
  }

  /// Whether `host` names the loopback interface: `localhost`, 127.0.0.0/8 or `::1`.
  public static func isLoopback(_ host: String) -> Bool {
    if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
    let parts = host.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
  }
}

/// A source URI taken apart: `SCHEME:REST?QUERY`, with the checks every scheme shares.
private struct URIParts {
  let text: String
  let scheme: String
  /// What follows the scheme's colon, without the query.
  var rest: String
  var query: [String: String] = [:]

  init(_ text: String) throws(SourceURI.ParseError) {
    self.text = text
    guard let colon = text.firstIndex(of: ":") else {
      throw SourceURI.ParseError(description: "invalid source '\(text)': expected SCHEME:...")
    }
    scheme = String(text[..<colon])
    rest = String(text[text.index(after: colon)...])
    if let q = rest.firstIndex(of: "?") {
      for pair in rest[rest.index(after: q)...].split(separator: "&") {
        let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard kv.count == 2, !kv[0].isEmpty else { throw fail("malformed query '\(pair)'") }
        query[String(kv[0])] = String(kv[1])
      }
      rest = String(rest[..<q])
    }
  }

  /// The error for this URI, saying `why`.
  func fail(_ why: String) -> SourceURI.ParseError {
    SourceURI.ParseError(description: "invalid source '\(text)': \(why)")
  }

  /// Fails on a query parameter outside `allowed`.
  func checkQuery(_ allowed: Set<String>) throws(SourceURI.ParseError) {
    for key in query.keys.sorted() where !allowed.contains(key) {
      throw fail("unknown parameter '\(key)'")
    }
  }

  /// A `0`/`1` query parameter; false when absent.
  func flag(_ name: String) throws(SourceURI.ParseError) -> Bool {
    guard let value = query[name] else { return false }
    guard value == "0" || value == "1" else { throw fail("\(name) must be 0 or 1") }
    return value == "1"
  }

  /// `//HOST[:PORT]`, HOST a name, an IPv4 address or `[IPv6]`.
  func hostPort(defaultPort: Int?, defaultHost: String? = nil) throws(SourceURI.ParseError) -> (String, Int) {
    guard rest.hasPrefix("//") else { throw fail("expected //HOST:PORT") }
    let authority = rest.dropFirst(2)
    var host: Substring
    var portText: Substring?
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { throw fail("unclosed '[' in address") }
      host = authority[authority.index(after: authority.startIndex)..<close]
      let after = authority[authority.index(after: close)...]
      if after.hasPrefix(":") {
        portText = after.dropFirst()
      } else if !after.isEmpty {
        throw fail("unexpected '\(after)'")
      }
    } else if let c = authority.lastIndex(of: ":") {
      host = authority[..<c]
      portText = authority[authority.index(after: c)...]
    } else {
      host = authority
    }
    if host.hasSuffix("/") { host = host.dropLast() }
    if host.isEmpty, let defaultHost { host = Substring(defaultHost) }
    guard !host.isEmpty, !host.contains("/") else { throw fail("missing host") }
    return (String(host), try port(portText, default: defaultPort))
  }

  private func port(_ text: Substring?, default defaultPort: Int?) throws(SourceURI.ParseError) -> Int {
    if let text {
      guard let p = Int(text.hasSuffix("/") ? text.dropLast() : text), (1...65535).contains(p)
      else { throw fail("port must be 1-65535") }
      return p
    }
    guard let defaultPort else { throw fail("missing :PORT") }
    return defaultPort
  }
}
