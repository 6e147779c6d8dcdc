import LocCore

/// The server's first line on every connection:
/// `{"type":"hello","protocol":{"major":1,"minor":4},"server":"locd 0.1.0"}`.
public struct Greeting: Hashable, Sendable {
  /// The protocol version the server speaks.
  public var version: ProtocolVersion
  /// The server's name and version, e.g. "locd 0.1.0".
  public var server: String

  /// A greeting.
  public init(version: ProtocolVersion, server: String) {
    self.version = version
    self.server = server
  }

  /// This build's greeting, for a daemon of version `serverVersion`.
  public init(serverVersion: String) {
    self.init(version: .current, server: "locd \(serverVersion)")
  }

  /// Whether a client of `client`'s major version may go on with this server: the same
  /// major, any minor (minor versions only add; docs/PROTOCOL.md).
  public func check(client: ProtocolVersion = .current) -> Result<Void, VersionMismatch> {
    guard version.major == client.major else {
      return .failure(VersionMismatch(server: version, client: client))
    }
    return .success(())
  }

  var members: JSONObject {
    ["type": .string("hello"), "protocol": version.json, "server": .string(server)]
  }

  init(_ o: WireObject) throws(WireDecodingError) {
    version = try ProtocolVersion(o.object("protocol"))
    server = try o.string("server")
  }
}

/// A server whose major protocol version differs from the client's.
public struct VersionMismatch: Error, Hashable, Sendable, CustomStringConvertible {
  /// What the server speaks.
  public var server: ProtocolVersion
  /// What the client speaks.
  public var client: ProtocolVersion

  public var description: String {
    "the daemon speaks protocol \(server), this client speaks \(client.major).x; "
      + "use a client and daemon of the same major version"
  }
}

extension ProtocolVersion {
  /// `{"major":1,"minor":4}`.
  var json: JSON { .object(["major": .int(major), "minor": .int(minor)]) }

  init(_ o: WireObject) throws(WireDecodingError) {
    let major = try o.int("major")
    let minor = try o.int("minor")
    guard major >= 0, minor >= 0 else { throw WireDecodingError(o.path, "versions are not negative") }
    self.init(major: major, minor: minor)
  }
}
