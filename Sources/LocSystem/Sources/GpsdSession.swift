import LocCore

/// gpsd's side of one `GpsdSource` connection, as gpsd's own messages tell it
/// (gpsd_json(5)): whether it greeted (`VERSION`) and with which release, whether reports
/// are on (its `WATCH` replies, counted on and off), its receivers (`DEVICES`, `DEVICE`),
/// its `ERROR`s, and the JSON lines nested too deep to read. No I/O: the source hands it
/// each line and carries out what it heard.
struct GpsdSession {
  /// What a line said that the source acts on.
  enum Heard: Equatable {
    /// The `VERSION` greeting.
    case greeting(GpsdMessage.Version)
    /// A `WATCH` reply: reports are on or off.
    case watch(Bool)
    /// An `ERROR`, with gpsd's text.
    case error(String)
  }

  /// Whether gpsd greeted on this connection.
  private(set) var greeted = false
  /// Whether gpsd confirmed that reports are on (its last `WATCH` reply on this connection).
  private(set) var watching = false
  /// gpsd's `WATCH` replies with reports on, and with reports off: its own word that it
  /// sends to locd, or that locd no longer needs the receiver.
  private(set) var watchEnables = 0
  private(set) var watchDisables = 0
  /// gpsd's release from its greeting, e.g. "3.22".
  private(set) var release: String?
  /// Receivers gpsd has, by path (DEVICES lists them, DEVICE announces one coming or going).
  private var devices = Set<String>()
  private var gpsdErrors = 0
  /// JSON lines nested deeper than `GpsdSource.maxNesting`: dropped by the decoder (one of
  /// its `errors`), counted here by cause.
  private var tooDeep = 0
  /// gpsd's last error on this connection.
  private(set) var protocolError: String?

  /// A connection came up: nothing heard on it yet.
  mutating func connected() {
    greeted = false
    watching = false
    devices = []
    protocolError = nil
  }

  /// The connection ended.
  mutating func disconnected() {
    greeted = false
    watching = false
  }

  /// gpsd's own messages: the greeting, the watch state, devices, errors. Reports (TPV,
  /// SKY) are left to the decoder without a second parse.
  mutating func inspect(_ line: UnsafeRawBufferPointer) -> Heard? {
    guard line.first == 0x7B else { return nil }  // {
    if GpsdSource.nesting(of: line, over: GpsdSource.maxNesting) {
      tooDeep += 1
      return nil
    }
    if GpsdSource.hasClass(line, "TPV") || GpsdSource.hasClass(line, "SKY") { return nil }
    guard let message = try? GpsdMessage.parse(line) else { return nil }
    switch message {
    case .version(let v):
      greeted = true
      release = v.release
      return .greeting(v)
    case .watch(let w):
      watching = w.enable ?? false
      if watching { watchEnables += 1 } else { watchDisables += 1 }
      return .watch(watching)
    case .devices(let list):
      devices = Set(list.map { $0.path ?? "" })
    case .other("DEVICE"):
      // `"activated":0` (a number, not a time) says the device went away (gpsd_json(5)).
      guard let object = try? JSON.parse(line).object, let path = object["path"]?.string else { break }
      if object["activated"]?.number == 0 { devices.remove(path) } else { devices.insert(path) }
    case .error(let text):
      gpsdErrors += 1
      protocolError = "gpsd: \(text ?? "error")"
      return .error(text ?? "error")
    default:
      break
    }
    return nil
  }

  /// The session's counters, named as `locctl status` shows them.
  var counters: [Counter] {
    [
      Counter("watching", watching ? 1 : 0), Counter("watchEnables", watchEnables),
      Counter("watchDisables", watchDisables), Counter("devices", devices.count),
      Counter("gpsdErrors", gpsdErrors), Counter("tooDeep", tooDeep),
    ]
  }
}
