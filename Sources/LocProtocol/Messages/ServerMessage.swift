import LocCore

/// A line the server sends: the greeting, a reply, an error or a pushed event
/// (docs/PROTOCOL.md). Each is one JSON object on one line. The daemon encodes these and
/// clients decode them; a reply's `result` is decoded by the caller, who knows which
/// request it answers (`Call`).
public enum ServerMessage: Hashable, Sendable {
  /// The first line on every connection.
  case greeting(Greeting)
  /// A successful answer to request `id`.
  case reply(id: RequestID, result: JSON)
  /// An error answer; `id` is nil when the request's id could not be read.
  case error(id: RequestID?, ErrorReply)
  /// A pushed event.
  case event(EventMessage)

  /// The reply to request `id` with the core's `response`.
  public static func reply(_ id: RequestID, _ response: Response) -> ServerMessage {
    .reply(id: id, result: response.result)
  }

  /// The error answer to request `id`.
  public static func failure(_ id: RequestID?, _ error: RequestError) -> ServerMessage {
    .error(id: id, ErrorReply(error))
  }

  /// The message as one JSON object.
  public var json: JSON {
    switch self {
    case .greeting(let g): return .object(g.members)
    case .reply(let id, let result):
      return .object(["type": .string("reply"), "id": id.json, "result": result])
    case .error(let id, let body):
      return .object(["type": .string("error"), "id": id?.json ?? .null, "error": body.json])
    case .event(let e): return .object(e.members)
    }
  }

  /// The line without its newline.
  public var line: String { json.serialized }

  /// The line as UTF-8 with its newline, written once; for an event sent to many sessions.
  public var lineBytes: [UInt8] {
    if case .event(let e) = self { return e.lineBytes }
    var out: [UInt8] = []
    out.reserveCapacity(1024)
    json.write(to: &out)
    out.append(0x0A)
    return out
  }

  /// The line, with its newline, that answers request `id` with `response`: the bytes of
  /// `.reply(id, response)`'s `lineBytes`. A status answer is written straight from its view
  /// (`StatusView.write`), without the tree in between; the others go through the tree.
  public static func replyLine(_ id: RequestID, _ response: Response) -> [UInt8] {
    guard case .status(let report) = response else { return ServerMessage.reply(id, response).lineBytes }
    var out = JSONBytes(capacity: 4096)
    out.openObject()
    out.member("type", .string("reply"))
    out.member("id", id.json)
    out.member("result", StatusView(report))
    out.closeObject()
    out.bytes.append(0x0A)
    return out.bytes
  }

  /// Decodes one line (without its newline).
  public static func decode(_ line: some Collection<UInt8>) throws(WireDecodingError) -> ServerMessage {
    let json: JSON
    do { json = try JSON.parse(line, maxDepth: 64) } catch {
      throw WireDecodingError(WirePath(), "not valid JSON: \(error)")
    }
    return try decode(json)
  }

  /// Decodes one message from its JSON.
  public static func decode(_ json: JSON) throws(WireDecodingError) -> ServerMessage {
    let o = try WireObject(json, path: WirePath())
    switch try o.string("type") {
    case "hello": return .greeting(try Greeting(o))
    case "reply":
      guard let result = o.members["result"] else { throw o.error("result", "missing") }
      return .reply(id: try RequestID(o, "id"), result: result)
    case "error":
      return .error(id: o.value("id") == nil ? nil : try RequestID(o, "id"), try o.decode("error"))
    case "event": return .event(try EventMessage(o))
    case let other: throw o.error("type", "unknown message type \"\(other.prefix(64))\"")
    }
  }
}

extension RequestID {
  /// The JSON form: a number or a string.
  public var json: JSON {
    switch self {
    case .number(let n): return .number(Double(n))
    case .string(let s): return .string(s)
    }
  }

  /// The id in member `key`: an integer below 9e15 or a string of at most 128 bytes.
  init(_ o: WireObject, _ key: String) throws(WireDecodingError) {
    switch o.value(key) {
    case .number(let n)? where n == n.rounded() && abs(n) < 9e15: self = .number(Int64(n))
    case .string(let s)? where s.utf8.count <= 128: self = .string(s)
    default: throw o.error(key, "must be an integer or a string of at most 128 bytes")
    }
  }
}
