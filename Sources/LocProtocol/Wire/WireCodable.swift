import LocCore

/// A message or a part of one with exactly one JSON form on locd's socket
/// (docs/PROTOCOL.md): the daemon encodes from it and clients decode into it, so
/// `try T(json: x.json) == x` for every value whose times and numbers carry the wire's
/// precision (what the conversions from the core's reports produce).
public protocol WireCodable: Hashable, Sendable {
  /// The JSON form, as docs/PROTOCOL.md documents it.
  var json: JSON { get }
  /// Decodes the JSON form; errors name `path`, where the value sits in its message.
  init(json: JSON, path: WirePath) throws(WireDecodingError)
}

extension WireCodable {
  /// Decodes a JSON value that is the whole message part.
  public init(json: JSON) throws(WireDecodingError) {
    try self.init(json: json, path: WirePath())
  }
}

/// Where a value sits in a message, for error messages: `result.position.lat`, `data.after[1]`.
public struct WirePath: Hashable, Sendable, CustomStringConvertible {
  /// The path down to `last`, joined.
  private var base: String
  /// The last member, not joined to `base` until the path is read or goes deeper: a
  /// decoder names the path of every member it reads, and only an error reads it, so a
  /// member costs no string of its own on the way (WireObject joins once per object).
  private var last: String?

  /// The path's text; empty at the top.
  public var text: String {
    guard let last else { return base }
    return base.isEmpty ? last : base + "." + last
  }

  /// The top of a message.
  public init() {
    base = ""
    last = nil
  }

  private init(base: String, last: String?) {
    self.base = base
    self.last = last
  }

  /// The member `key` below this path.
  public func member(_ key: String) -> WirePath { WirePath(base: text, last: key) }

  /// The element `index` below this path.
  public func element(_ index: Int) -> WirePath { WirePath(base: text + "[\(index)]", last: nil) }

  /// The same path with its text joined, for one that many members will be named below.
  public var joined: WirePath { last == nil ? self : WirePath(base: text, last: nil) }

  public var description: String { text.isEmpty ? "the message" : text }

  public static func == (a: WirePath, b: WirePath) -> Bool { a.text == b.text }
  public func hash(into hasher: inout Hasher) { hasher.combine(text) }
}

/// Why a message could not be decoded: where, and what was wrong.
public struct WireDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Where the problem is.
  public var path: WirePath
  /// What is wrong, e.g. "expected a number, got \"x\"".
  public var reason: String

  /// An error at `path`.
  public init(_ path: WirePath, _ reason: String) {
    self.path = path
    self.reason = reason
  }

  public var description: String { "\(path): \(reason)" }
}

/// A string enumeration that later minor versions of the protocol may extend
/// (docs/PROTOCOL.md, "Versions"): a value this side knows, or the word it does not.
public enum OpenEnum<Known>: Hashable, Sendable
where Known: RawRepresentable & Hashable & Sendable, Known.RawValue == String {
  /// A value this build knows.
  case known(Known)
  /// A word from a newer peer.
  case other(String)

  /// The case for `word`.
  public init(_ word: String) {
    if let known = Known(rawValue: word) { self = .known(known) } else { self = .other(word) }
  }

  /// The word on the wire.
  public var word: String {
    switch self {
    case .known(let k): return k.rawValue
    case .other(let w): return w
    }
  }

  /// The known value, if this is one.
  public var known: Known? {
    if case .known(let k) = self { return k }
    return nil
  }
}
