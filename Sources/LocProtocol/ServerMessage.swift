import LocCore

/// Lines the server sends: the greeting, replies, errors and pushed events.
/// Each is one JSON object on one line (docs/PROTOCOL.md).
public enum ServerMessage {
  /// The first line on every connection: names the protocol version.
  public static func hello(serverVersion: String) -> String {
    let o: JSONObject = [
      "type": .string("hello"),
      "protocol": .object(["major": .int(ProtocolVersion.major), "minor": .int(ProtocolVersion.minor)]),
      "server": .string("locd \(serverVersion)"),
    ]
    return JSON.object(o).serialized
  }

  /// A successful answer to request `id`.
  public static func reply(_ id: RequestID, _ result: JSON) -> String {
    JSON.object(["type": .string("reply"), "id": encode(id), "result": result]).serialized
  }

  /// An error answer; `id` is null when the request's id could not be read.
  public static func error(_ id: RequestID?, _ error: RequestError) -> String {
    let body: JSONObject = ["code": .string(error.code.rawValue), "message": .string(error.message)]
    return JSON.object(["type": .string("error"), "id": id.map(encode) ?? .null, "error": .object(body)])
      .serialized
  }

  /// A pushed event.
  public static func event(_ notice: Notice, at time: Instant) -> String {
    event(name: notice.kind.rawValue, data: WireEncoding.encode(notice), at: time)
  }

  /// A pushed event with an explicit name and payload.
  public static func event(name: String, data: JSON, at time: Instant) -> String {
    JSON.object([
      "type": .string("event"), "event": .string(name), "time": .string(time.iso8601(fractionDigits: 6)),
      "data": data,
    ]).serialized
  }

  /// The JSON form of a request id.
  public static func encode(_ id: RequestID) -> JSON {
    switch id {
    case .number(let n): return .number(Double(n))
    case .string(let s): return .string(s)
    }
  }
}
