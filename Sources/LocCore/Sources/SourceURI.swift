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
  /// `serial:/dev/ttyUSB0?baud=auto|N`: a receiver on a serial line.
  case serial(path: String, baud: Baud)

  /// The address listening sources bind when the URI gives none (`nmea+udp://:10110`):
  /// loopback, so nothing is exposed to the network unless asked for.
  public static let loopback = "127.0.0.1"
  /// gpsd's default port (gpsd(8)).
  public static let gpsdDefaultPort = 2947
  /// The source used when none is configured.
  public static let defaultSource = SourceURI.gpsd(host: "127.0.0.1", port: gpsdDefaultPort, nmea: false)
  /// Serial speeds tried by `baud=auto`, most common for GNSS receivers first.
  public static let autoBaudRates = [9600, 4800, 38400, 115200]

  /// Why a URI was rejected.
  public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, naming the URI.
    public var description: String
  }

  /// Parses a source URI.
  public init(parsing text: String) throws(ParseError) {
    func fail(_ why: String) -> ParseError { ParseError(description: "invalid source '\(text)': \(why)") }
    guard let colon = text.firstIndex(of: ":") else { throw fail("expected SCHEME:...") }
    let scheme = String(text[..<colon])
    var rest = String(text[text.index(after: colon)...])
    var query: [String: String] = [:]
    if let q = rest.firstIndex(of: "?") {
      for pair in rest[rest.index(after: q)...].split(separator: "&") {
        let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard kv.count == 2, !kv[0].isEmpty else { throw fail("malformed query '\(pair)'") }
        query[String(kv[0])] = String(kv[1])
      }
      rest = String(rest[..<q])
    }
    func checkQuery(_ allowed: Set<String>) throws(ParseError) {
      for key in query.keys.sorted() where !allowed.contains(key) {
        throw fail("unknown parameter '\(key)'")
      }
    }
    func hostPort(defaultPort: Int?, defaultHost: String? = nil) throws(ParseError) -> (String, Int) {
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
      let port: Int
      if let portText {
        guard let p = Int(portText.hasSuffix("/") ? portText.dropLast() : portText), (1...65535).contains(p)
        else { throw fail("port must be 1-65535") }
        port = p
      } else if let defaultPort {
        port = defaultPort
      } else {
        throw fail("missing :PORT")
      }
      return (String(host), port)
    }
    switch scheme {
    case "replay":
      try checkQuery(["speed", "loop"])
      guard !rest.isEmpty else { throw fail("missing file path") }
      var speed = Speed.factor(1)
      if let s = query["speed"] {
        if s == "max" {
          speed = .max
        } else if let f = Double(s), f > 0, f.isFinite {
          speed = .factor(f)
        } else {
          throw fail("speed must be a positive number or 'max'")
        }
      }
      var loop = false
      if let l = query["loop"] {
        guard l == "0" || l == "1" else { throw fail("loop must be 0 or 1") }
        loop = l == "1"
      }
      // A capture's name says what it is: `btmon -w` and Android write `*.btsnoop` (or
      // `btsnoop_hci.log`, which has to be renamed or linked for locd to read it as one).
      if rest.hasSuffix(".btsnoop") {
        self = .beaconReplay(path: rest, speed: speed, loop: loop)
      } else {
        self = .replay(path: rest, speed: speed, loop: loop)
      }
    case "gpsd":
      try checkQuery(["nmea"])
      let (host, port) = try hostPort(defaultPort: SourceURI.gpsdDefaultPort)
      var nmea = false
      if let n = query["nmea"] {
        guard n == "0" || n == "1" else { throw fail("nmea must be 0 or 1") }
        nmea = n == "1"
      }
      self = .gpsd(host: host, port: port, nmea: nmea)
    case "nmea+tcp":
      try checkQuery([])
      let (host, port) = try hostPort(defaultPort: nil)
      self = .nmeaTCP(host: host, port: port)
    case "nmea+tcp-listen":
      try checkQuery([])
      let (host, port) = try hostPort(defaultPort: nil, defaultHost: SourceURI.loopback)
      self = .nmeaTCPListen(address: host, port: port)
    case "nmea+udp":
      try checkQuery([])
      let (host, port) = try hostPort(defaultPort: nil, defaultHost: SourceURI.loopback)
      self = .nmeaUDP(address: host, port: port)
    case "serial":
      try checkQuery(["baud"])
      guard rest.hasPrefix("/") else { throw fail("expected an absolute device path") }
      var baud = Baud.auto
      if let b = query["baud"], b != "auto" {
        guard let n = Int(b),
          [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800].contains(n)
        else { throw fail("baud must be auto or a standard rate") }
        baud = .fixed(n)
      }
      self = .serial(path: rest, baud: baud)
    default:
      throw fail("unknown scheme '\(scheme)' (replay, gpsd, nmea+tcp, nmea+tcp-listen, nmea+udp, serial)")
    }
  }

  /// Whether the source gives beacon advertisements rather than fixes.
  public var isBeaconSource: Bool {
    if case .beaconReplay = self { return true }
    return false
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
    case .serial(let path, let baud):
      switch baud {
      case .auto: return "serial:\(path)?baud=auto"
      case .fixed(let n): return "serial:\(path)?baud=\(n)"
      }
    }
  }
}
