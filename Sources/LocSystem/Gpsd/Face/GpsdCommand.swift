import LocCore

/// A command of gpsd's JSON protocol as a client sends it (gpsd_json(5), "COMMANDS"):
/// `?NAME;` or `?NAME={...};`, ended by `;` or the end of the line.
enum GpsdCommand: Sendable, Equatable {
  /// `?WATCH;` asks for the watch policy; with an object it changes it.
  case watch(GpsdWatchChange?)
  /// `?POLL;`: the last report of each kind the client was given.
  case poll
  /// `?DEVICES;`: the devices (locd's sources).
  case devices
  /// `?VERSION;`.
  case version
  /// `?DEVICE;` (asking; locd does not let clients configure its receivers).
  case device

  /// Longest command accepted: gpsd_json(5) documents no limit, and its own commands are short
  /// (`?WATCH` with every member and a device path is under 300 bytes). A longer one is
  /// answered with an ERROR and skipped.
  static let maxBytes = 1024

  /// Why a command was refused; the text goes in an ERROR's `message`.
  struct Refusal: Error, Equatable, Sendable {
    var message: String
  }

  /// Reads one command from its text (without the `;`). Whitespace around it is ignored.
  static func parse(_ text: Substring) -> Result<GpsdCommand, Refusal> {
    let trimmed = text.drop(while: { $0 == " " || $0 == "\t" || $0 == "\r" })
    guard trimmed.first == "?" else { return .failure(Refusal(message: "Missing leading ?")) }
    let body = trimmed.dropFirst()
    let name: Substring
    let argument: Substring?
    if let eq = body.firstIndex(of: "=") {
      name = body[..<eq]
      argument = body[body.index(after: eq)...]
    } else {
      name = body.prefix(while: { $0 != " " && $0 != "\t" && $0 != "\r" })
      argument = nil
    }
    switch name {
    case "WATCH":
      guard let argument else { return .success(.watch(nil)) }
      return GpsdWatchChange.parse(argument).map { .watch($0) }
    case "POLL": return .success(.poll)
    case "DEVICES": return .success(.devices)
    case "VERSION": return .success(.version)
    case "DEVICE":
      guard argument == nil else {
        return .failure(Refusal(message: "locd does not let clients configure its receivers"))
      }
      return .success(.device)
    default:
      return .failure(Refusal(message: "Unrecognized request '\(name.prefix(32))'"))
    }
  }
}

/// The members of a `?WATCH={...}` object the face acts on (gpsd_json(5), "?WATCH"); the
/// others gpsd defines are accepted and ignored, unknown ones refused.
struct GpsdWatchChange: Sendable, Equatable {
  /// `enable`: start (true) or stop (false) the stream.
  var enable: Bool?
  /// `json`: TPV and SKY reports.
  var json: Bool?
  /// `nmea`: NMEA 0183 sentences made from each fix.
  var nmea: Bool?
  /// `raw`: 1 for the receiver's sentences as text (locd sends the sentences it makes, as for
  /// `nmea`), 2 for its bytes (the same here).
  var raw: Int?
  /// `device`: only this device's reports.
  var device: String?

  /// Members gpsd defines that change nothing here (`scaled`, `split24`, `pps`, `timing`,
  /// `remote`, `class`).
  static let ignored: Set<String> = ["class", "scaled", "split24", "pps", "timing", "remote"]

  static func parse(_ text: Substring) -> Result<GpsdWatchChange, GpsdCommand.Refusal> {
    let json: JSON
    do { json = try JSON.parse(Array(text.utf8), maxDepth: 2, maxMembers: 16) } catch {
      return .failure(GpsdCommand.Refusal(message: "Invalid WATCH: \(error)"))
    }
    guard let object = json.object else {
      return .failure(GpsdCommand.Refusal(message: "Invalid WATCH: not an object"))
    }
    var change = GpsdWatchChange()
    for (key, value) in object.members {
      func flag() -> Result<Bool, GpsdCommand.Refusal> {
        if let b = value.bool { return .success(b) }
        return .failure(GpsdCommand.Refusal(message: "Invalid WATCH: \(key) must be true or false"))
      }
      switch key {
      case "enable":
        switch flag() {
        case .success(let b): change.enable = b
        case .failure(let e): return .failure(e)
        }
      case "json":
        switch flag() {
        case .success(let b): change.json = b
        case .failure(let e): return .failure(e)
        }
      case "nmea":
        switch flag() {
        case .success(let b): change.nmea = b
        case .failure(let e): return .failure(e)
        }
      case "raw":
        guard let n = value.number, n == n.rounded(), (0...2).contains(n) else {
          return .failure(GpsdCommand.Refusal(message: "Invalid WATCH: raw must be 0, 1 or 2"))
        }
        change.raw = Int(n)
      case "device":
        guard let path = value.string, path.utf8.count <= 256 else {
          return .failure(GpsdCommand.Refusal(message: "Invalid WATCH: device must be a path"))
        }
        change.device = path
      default:
        guard ignored.contains(key) else {
          return .failure(
            GpsdCommand.Refusal(message: "Invalid WATCH: unknown attribute '\(key.prefix(32))'"))
        }
      }
    }
    return .success(change)
  }
}
