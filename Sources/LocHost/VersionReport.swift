import LocCore
import LocProtocol

/// What `locd --version` and `locctl --version` print: the program's version, the protocol
/// version it speaks, the time-zone boundary data it finds (the timezone-boundary-builder
/// release and the tzdata release its zone names come from, both in the file's header) and
/// the system's tzdata release (the `# version` line of tzdata.zi, which Debian's tzdata and
/// the IANA `make install` put in the zoneinfo directory).
public struct VersionReport: Sendable {
  /// This release of locd (debian/changelog names the same): what `--version`, the protocol
  /// greeting and the ready line say.
  public static let release = "0.1.0"
  /// locd's version.
  public var version = VersionReport.release
  /// The protocol version this build speaks.
  public var protocolVersion = ProtocolVersion.current
  /// The boundary file: its path and releases, or why it is not there.
  public var boundaries: Result<(path: String, release: String, tzdata: String), ZoneBoundaryFile.LoadError>
  /// The system's tzdata release, if tzdata.zi says.
  public var systemTzdata: String?
  /// The zoneinfo directory read.
  public var zoneinfo: String

  /// The versions as this machine has them.
  public static func current() -> VersionReport {
    let database = ZoneDatabase()
    let boundaries = Result {
      () throws(ZoneBoundaryFile.LoadError) -> (path: String, release: String, tzdata: String) in
      let file = try ZoneBoundaryFile.open()
      return (file.path, file.boundaries.boundaryRelease, file.boundaries.tzdataVersion)
    }
    return VersionReport(
      boundaries: boundaries, systemTzdata: tzdataVersion(in: database.directory),
      zoneinfo: database.directory)
  }

  /// `2025b` from the first line of DIR/tzdata.zi (`# version 2025b`), if there is one.
  public static func tzdataVersion(in directory: String) -> String? {
    guard let bytes = try? FileIO.read(path: directory + "/tzdata.zi", limit: 256 * 1024) else { return nil }
    let line = String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    guard line.hasPrefix("# version ") else { return nil }
    let version = line.dropFirst("# version ".count).filter { $0 != " " && $0 != "\r" }
    return version.isEmpty || version.count > 32 ? nil : String(version)
  }

  /// Lines for a person, headed by `program` ("locd", "locctl").
  public func text(program: String) -> String {
    var out = "\(program) \(version)\n"
    out += "protocol: \(protocolVersion.major).\(protocolVersion.minor)\n"
    switch boundaries {
    case .success(let b):
      out +=
        "time-zone boundaries: timezone-boundary-builder \(b.release) (zone names of tzdata \(b.tzdata)), \(b.path)\n"
    case .failure(let error):
      out += "time-zone boundaries: none (\(error))\n"
    }
    out += "tzdata: \(systemTzdata ?? "unknown (no tzdata.zi)") in \(zoneinfo)\n"
    return out
  }

  /// One JSON object: `version`, `protocol` (`major`, `minor`), `boundaryRelease`,
  /// `boundaryTzdata` and `boundaryFile` (null without the file), `tzdata`, `zoneinfo`.
  public var json: JSON {
    var o: JSONObject = [
      "version": .string(version),
      "protocol": .object(["major": .int(protocolVersion.major), "minor": .int(protocolVersion.minor)]),
    ]
    let b = try? boundaries.get()
    o["boundaryRelease"] = .optional(b?.release)
    o["boundaryTzdata"] = .optional(b?.tzdata)
    o["boundaryFile"] = .optional(b?.path)
    o["tzdata"] = .optional(systemTzdata)
    o["zoneinfo"] = .string(zoneinfo)
    return .object(o)
  }
}
