import LocCore

/// The faces clients reach locd through: the native socket and, when `[GeoClue] Enable=yes`,
/// the GeoClue2 face on the system bus, and when `[Gpsd] Enable=yes` the gpsd-compatible face; the registry that says which holds a session; and
/// the access policy both apply to a peer.
final class Faces {
  /// The native socket, once listening.
  var server: ControlServer?
  /// The GeoClue2 face, while enabled.
  var geoClue: GeoClueService?
  /// The gpsd-compatible face, while `[Gpsd] Enable=yes`.
  var gpsd: GpsdServer?
  /// The NMEA pty and its session, while `[NMEAOut] Enable=yes`.
  var nmeaOut: (NMEAPty, SessionID)?
  /// The NMEA output's loopback TCP port, while `[NMEAOut] ListenPort=` names one: the gpsd
  /// face's server, streaming sentences only.
  var nmeaTCP: GpsdServer?
  /// The URI of each source seen sending its own sentences (`Daemon.relay`).
  var nmeaSources: [SourceID: String] = [:]
  /// Each source's URI as the faces name it (`Daemon.sourceName`), made once per source set.
  var sourceNames: [SourceID: String] = [:]
  /// Which face holds each engine session.
  let sessions = SessionRegistry()
  /// Whether locd created the socket file (and so removes it at exit).
  var ownsSocketFile = false
  /// Who may read and who may administer, with group names resolved once (getgrnam can go
  /// through NSS to systemd or LDAP): at start and on reload, not per connection.
  var policy: AccessPolicy

  init(policy: AccessPolicy) { self.policy = policy }
}
