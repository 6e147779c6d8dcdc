import LocCore

/// The body of an error answer: a stable code and a message for people.
public struct ErrorReply: WireCodable, Error, CustomStringConvertible {
  /// The stable code; newer minor versions may add codes.
  public var code: OpenEnum<ErrorCode>
  /// What went wrong, in words.
  public var message: String

  /// An error body.
  public init(code: OpenEnum<ErrorCode>, message: String) {
    self.code = code
    self.message = message
  }

  /// The wire form of `e`.
  public init(_ e: RequestError) { self.init(code: .known(e.code), message: e.message) }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    code = try o.open("code")
    message = try o.string("message")
  }

  public var json: JSON { .object(["code": .string(code.word), "message": .string(message)]) }

  public var description: String { "\(message) (\(code.word))" }
}
