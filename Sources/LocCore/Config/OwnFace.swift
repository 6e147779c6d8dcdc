/// One of the places where locd serves positions to other programs that a source could be
/// pointed at by mistake: reading it, locd would read its own positions back, each fix the
/// last one again, and hold the receiver open for itself forever (decision 0063).
public enum OwnFace: Hashable, Sendable, CustomStringConvertible {
  /// The gpsd face's TCP port on 127.0.0.1 (`[Gpsd] ListenPort=`).
  case gpsdPort(Int)
  /// The NMEA output's TCP port on 127.0.0.1 (`[NMEAOut] ListenPort=`).
  case nmeaPort(Int)
  /// The NMEA output's pty, at its link (`[NMEAOut] Link=`).
  case nmeaPty(link: String)

  /// `locd's own gpsd face ([Gpsd] ListenPort=2947)`.
  public var description: String {
    switch self {
    case .gpsdPort(let port): return "locd's own gpsd face ([Gpsd] ListenPort=\(port))"
    case .nmeaPort(let port): return "locd's own NMEA output ([NMEAOut] ListenPort=\(port))"
    case .nmeaPty(let link): return "locd's own NMEA output ([NMEAOut] Link=\(link))"
    }
  }
}

/// A configured source that would read one of locd's own faces: a configuration problem, so
/// `locd --check-config` fails and locd does not start (nor take it on reload).
public struct SourceLoop: Hashable, Sendable, CustomStringConvertible {
  /// The source.
  public var source: SourceURI
  /// What it would read.
  public var face: OwnFace

  /// `source gpsd://127.0.0.1:2947 would read locd's own gpsd face ([Gpsd] ListenPort=2947): ...`
  public var description: String {
    let remedy: String
    switch face {
    case .gpsdPort:
      remedy = "set Source= to the receiver (or to a gpsd on another port), or ListenPort= to another port"
    case .nmeaPort: remedy = "set Source= to the receiver, or [NMEAOut] ListenPort= to another port"
    case .nmeaPty: remedy = "set Source= to the receiver's device, or [NMEAOut] Link= to another path"
    }
    return "source \(source) would read \(face): locd would read back its own positions and never let go of "
      + "the receiver; \(remedy) (docs/SOURCES.md, \"Sources that read locd itself\")"
  }
}

extension DaemonConfig {
  /// The faces this configuration serves that a source could read: the gpsd face's and the
  /// NMEA output's TCP ports and the NMEA output's pty (only those enabled). The gpsd face's
  /// Unix socket is not among them: no source connects to a Unix socket path.
  public var ownFaces: [OwnFace] {
    var faces: [OwnFace] = []
    if gpsd.enabled, let port = gpsd.listenPort { faces.append(.gpsdPort(port)) }
    if nmeaOut.enabled {
      if let port = nmeaOut.listenPort { faces.append(.nmeaPort(port)) }
      faces.append(.nmeaPty(link: nmeaOut.link))
    }
    return faces
  }

  /// The face of this configuration that `source` would read, if any: a connecting TCP source
  /// (`gpsd://`, `nmea+tcp://`, whatever protocol it speaks) at a face's port on a host that
  /// reaches 127.0.0.1 (`LoopbackReach`), or a `serial:` source at the NMEA output's link
  /// (compared as paths, `.` and repeated slashes aside; a link to the link is not followed).
  public func ownFace(readBy source: SourceURI) -> OwnFace? {
    for face in ownFaces {
      switch (source, face) {
      case (.gpsd(let host, let port, _), .gpsdPort(let facePort)),
        (.gpsd(let host, let port, _), .nmeaPort(let facePort)),
        (.nmeaTCP(let host, let port), .gpsdPort(let facePort)),
        (.nmeaTCP(let host, let port), .nmeaPort(let facePort)):
        if port == facePort, LoopbackReach.reachesLoopbackListener(host) { return face }
      case (.serial(let path, _), .nmeaPty(let link)):
        if DaemonConfig.samePath(path, link) { return face }
      default:
        break
      }
    }
    return nil
  }

  /// The configured sources that would read one of locd's own faces (the default source is
  /// set aside instead, `defaultSourceSetAside`).
  public var sourceLoops: [SourceLoop] {
    sources.compactMap { source in ownFace(readBy: source).map { SourceLoop(source: source, face: $0) } }
  }

  /// The face that takes the default source's address when no source is configured (locd's
  /// gpsd face on gpsd's port 2947, the natural way to stand in for gpsd): the default source
  /// is then not used, since the face replaces gpsd and reading it would read locd itself;
  /// nil when sources are configured or the default one is free.
  public var defaultSourceSetAside: OwnFace? {
    guard sources.isEmpty else { return nil }
    return ownFace(readBy: SourceURI.defaultSource)
  }

  /// Whether two absolute paths name the same file as written: `.` components and repeated
  /// slashes aside (`..` is not taken apart, and links are not followed: no file is read).
  static func samePath(_ a: String, _ b: String) -> Bool {
    func parts(_ p: String) -> [Substring] { p.split(separator: "/").filter { $0 != "." } }
    return a.hasPrefix("/") == b.hasPrefix("/") && parts(a) == parts(b)
  }
}
