/// A JSON value (RFC 8259). locd speaks JSON without Foundation: this type, its
/// bounded parser and its serializer are all the wire needs.
public enum JSON: Hashable, Sendable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSON])
  /// An object; keys keep their insertion order so output is stable and readable.
  case object(JSONObject)

  /// The string, if this is one.
  public var string: String? { if case .string(let s) = self { return s } else { return nil } }
  /// The number, if this is one.
  public var number: Double? { if case .number(let n) = self { return n } else { return nil } }
  /// The boolean, if this is one.
  public var bool: Bool? { if case .bool(let b) = self { return b } else { return nil } }
  /// The array, if this is one.
  public var array: [JSON]? { if case .array(let a) = self { return a } else { return nil } }
  /// The object, if this is one.
  public var object: JSONObject? { if case .object(let o) = self { return o } else { return nil } }
  /// Whether this is `null`.
  public var isNull: Bool { if case .null = self { return true } else { return false } }
  /// The member `key` of an object; `nil` for other values or a missing key.
  public subscript(key: String) -> JSON? { object?[key] }
  /// The element `index` of an array; `nil` for other values or an index out of range.
  public subscript(index: Int) -> JSON? {
    guard let a = array, a.indices.contains(index) else { return nil }
    return a[index]
  }

  /// A number from an integer.
  public static func int(_ value: Int) -> JSON { .number(Double(value)) }
  /// A string, or null when `nil`.
  public static func optional(_ value: String?) -> JSON { value.map { .string($0) } ?? .null }
  /// A number, or null when `nil`.
  public static func optional(_ value: Double?) -> JSON { value.map { .number($0) } ?? .null }
  /// A number, or null when `nil`.
  public static func optional(_ value: Int?) -> JSON { value.map { .number(Double($0)) } ?? .null }
}

/// A JSON object with ordered keys.
public struct JSONObject: Hashable, Sendable, ExpressibleByDictionaryLiteral {
  /// Members in order.
  public private(set) var members: [(key: String, value: JSON)]

  public init(dictionaryLiteral elements: (String, JSON)...) {
    members = elements.map { (key: $0.0, value: $0.1) }
  }

  /// An empty object.
  public init() { members = [] }

  /// An object of `members`, whose keys the caller knows to be distinct.
  init(members: [(key: String, value: JSON)]) { self.members = members }

  /// The value of `key`; setting replaces it in place or appends it.
  public subscript(key: String) -> JSON? {
    get { members.first(where: { $0.key == key })?.value }
    set {
      if let i = members.firstIndex(where: { $0.key == key }) {
        if let newValue { members[i].value = newValue } else { members.remove(at: i) }
      } else if let newValue {
        members.append((key: key, value: newValue))
      }
    }
  }

  /// The keys in order.
  public var keys: [String] { members.map(\.key) }

  public static func == (a: JSONObject, b: JSONObject) -> Bool {
    a.members.count == b.members.count
      && zip(a.members, b.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
  }

  public func hash(into hasher: inout Hasher) {
    for m in members {
      hasher.combine(m.key)
      hasher.combine(m.value)
    }
  }
}

// MARK: - Serializing

extension JSON {
  /// Compact serialization on one line (no newline inside, so it frames as one message).
  public var serialized: String {
    var out: [UInt8] = []
    out.reserveCapacity(256)
    write(to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// Appends the compact serialization, as UTF-8, to `out`.
  public func write(to out: inout [UInt8]) {
    switch self {
    case .null: out.append(contentsOf: JSON.nullBytes)
    case .bool(let b): out.append(contentsOf: b ? JSON.trueBytes : JSON.falseBytes)
    case .number(let n): JSON.writeNumber(n, to: &out)
    case .string(let s): JSON.writeString(s, to: &out)
    case .array(let a):
      out.append(UInt8(ascii: "["))
      for (i, v) in a.enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        v.write(to: &out)
      }
      out.append(UInt8(ascii: "]"))
    case .object(let o):
      out.append(UInt8(ascii: "{"))
      for (i, m) in o.members.enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        JSON.writeString(m.key, to: &out)
        out.append(UInt8(ascii: ":"))
        m.value.write(to: &out)
      }
      out.append(UInt8(ascii: "}"))
    }
  }

  static let nullBytes = Array("null".utf8)
  static let trueBytes = Array("true".utf8)
  static let falseBytes = Array("false".utf8)

  static func writeNumber(_ n: Double, to out: inout [UInt8]) {
    guard n.isFinite else {
      // JSON has no NaN or infinity; locd never produces them, but never emit invalid JSON.
      out.append(contentsOf: nullBytes)
      return
    }
    // Every integer below 2^53 is exact in a Double, so it is written as one (request ids
    // reach 9e15); past that, the exponent form.
    if n == n.rounded(), abs(n) < 9_007_199_254_740_992 {
      // Integers without a fraction; short strings live inline, so this allocates nothing.
      out.append(contentsOf: String(Int64(n)).utf8)
    } else {
      out.append(contentsOf: numberText(n).utf8)
    }
  }

  /// 10^0 ... 10^22, each exact in a Double.
  static let exactPowersOfTen: [Double] = (0...22).map { n in (0..<n).reduce(1.0) { x, _ in x * 10 } }

  /// The shortest text that reads back as `n`, unless that takes more than 15 significant
  /// digits: then `n` rounded to 15. A double holds 15.95 decimal digits, so the 16th and
  /// 17th are binary noise of an earlier computation (`13.6` parsed as 136 × 0.1 prints
  /// `13.600000000000001`), never a measured digit.
  static func numberText(_ n: Double) -> String {
    let text = n.description
    var significant = 0
    var leading = true
    for c in text.utf8 {
      if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { break }
      guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { continue }
      if leading, c == UInt8(ascii: "0") { continue }
      leading = false
      significant += 1
    }
    guard significant > 15 else { return text }
    // 15 significant digits: n × 10^(14 - e) rounded to an integer below 10^15, then divided
    // back; both factors are exact, so the quotient is the double nearest the 15-digit decimal.
    let e = Int((abs(n)).exponent10)
    let shift = 14 - e
    guard (0...22).contains(shift) else { return text }
    let scale = exactPowersOfTen[shift]
    let cut = (n * scale).rounded() / scale
    // 434.99999999999994 becomes 435: an integer, written as one.
    if cut == cut.rounded(), abs(cut) < 1e15 { return String(Int64(cut)) }
    return cut.description
  }

  static func writeString(_ s: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    var s = s
    s.withUTF8 { bytes in
      // Copy runs that need no escaping in one go.
      var start = 0
      for (i, b) in bytes.enumerated() where b < 0x20 || b == 0x22 || b == 0x5C {
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
        switch b {
        case 0x22: out.append(contentsOf: [0x5C, 0x22])
        case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        default:
          let hex = Array("0123456789abcdef".utf8)
          out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]])
        }
        start = i + 1
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<bytes.count]))
    }
    out.append(UInt8(ascii: "\""))
  }
}

// MARK: - Parsing

/// Why a JSON text was rejected.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Byte offset of the problem.
  public var offset: Int
  /// What is wrong.
  public var reason: String
  public var description: String { "\(reason) at byte \(offset)" }
}

extension JSON {
  /// Most members one object may have unless the caller says otherwise. The largest objects
  /// locd reads are gpsd's reports (about 30 members) and its own files; a request needs a
  /// handful. Past the bound the text is rejected at the first member too many.
  public static let defaultMaxMembers = 1024

  /// Parses one JSON value from UTF-8 bytes. The work is linear in the bytes: nesting deeper
  /// than `maxDepth` and an object with more than `maxMembers` members are errors (so a hostile
  /// peer can exhaust neither the stack nor the loop), and a duplicate key is an error found in
  /// O(1) amortised time per member.
  public static func parse(
    _ bytes: some Collection<UInt8>, maxDepth: Int = 32, maxMembers: Int = JSON.defaultMaxMembers
  ) throws(JSONParseError) -> JSON {
    let array = Array(bytes)
    var parser = JSONParser(bytes: array, maxDepth: maxDepth, maxMembers: maxMembers)
    parser.skipSpace()
    let value = try parser.value(depth: 0)
    parser.skipSpace()
    guard parser.i == array.count else {
      throw JSONParseError(offset: parser.i, reason: "trailing characters")
    }
    return value
  }

  /// Parses one JSON value from a string.
  public static func parse(
    _ text: String, maxDepth: Int = 32, maxMembers: Int = JSON.defaultMaxMembers
  ) throws(JSONParseError) -> JSON {
    try parse(Array(text.utf8), maxDepth: maxDepth, maxMembers: maxMembers)
  }
}

struct JSONParser {
  let bytes: [UInt8]
  let maxDepth: Int
  let maxMembers: Int
  var i = 0

  /// Up to this many members, a duplicate key is looked for by comparing with each (no
  /// allocation, and faster than hashing for the small objects that are the rule); past it a
  /// hash set takes over, so an object of n members costs O(n), not O(n²). Swift's `Hasher`
  /// is seeded per process, so a peer cannot send keys chosen to collide.
  static let linearScanLimit = 8

  init(bytes: [UInt8], maxDepth: Int, maxMembers: Int) {
    self.bytes = bytes
    self.maxDepth = maxDepth
    self.maxMembers = maxMembers
  }

  mutating func skipSpace() {
    while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 {
      i += 1
    }
  }

  func fail(_ reason: String) -> JSONParseError { JSONParseError(offset: i, reason: reason) }

  mutating func value(depth: Int) throws(JSONParseError) -> JSON {
    guard depth <= maxDepth else { throw fail("nesting deeper than \(maxDepth)") }
    guard i < bytes.count else { throw fail("unexpected end") }
    switch bytes[i] {
    case UInt8(ascii: "{"):
      return .object(try object(depth: depth))
    case UInt8(ascii: "["):
      i += 1
      var array: [JSON] = []
      skipSpace()
      if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
        i += 1
        return .array(array)
      }
      while true {
        skipSpace()
        array.append(try value(depth: depth + 1))
        skipSpace()
        guard i < bytes.count else { throw fail("unexpected end in array") }
        if bytes[i] == UInt8(ascii: ",") {
          i += 1
          continue
        }
        guard bytes[i] == UInt8(ascii: "]") else { throw fail("expected ',' or ']'") }
        i += 1
        return .array(array)
      }
    case UInt8(ascii: "\""):
      return .string(try string())
    case UInt8(ascii: "t"):
      try literal("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try literal("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try literal("null")
      return .null
    default:
      return .number(try number())
    }
  }

  /// An object, from its `{`; each member costs O(1) amortised besides its bytes.
  mutating func object(depth: Int) throws(JSONParseError) -> JSONObject {
    i += 1
    var members: [(key: String, value: JSON)] = []
    var keys: Set<String>? = nil
    skipSpace()
    if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
      i += 1
      return JSONObject(members: members)
    }
    while true {
      skipSpace()
      guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
      let keyOffset = i
      let key = try string()
      guard members.count < maxMembers else {
        throw JSONParseError(offset: keyOffset, reason: "more than \(maxMembers) members in one object")
      }
      let duplicate: Bool
      if keys != nil {
        duplicate = !keys!.insert(key).inserted
      } else {
        duplicate = members.contains { $0.key == key }
        if !duplicate, members.count >= JSONParser.linearScanLimit {
          keys = Set(members.map(\.key) + [key])
        }
      }
      if duplicate {
        throw JSONParseError(offset: keyOffset, reason: "duplicate key \(JSONParser.quoted(key))")
      }
      skipSpace()
      guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
      i += 1
      skipSpace()
      members.append((key: key, value: try value(depth: depth + 1)))
      skipSpace()
      guard i < bytes.count else { throw fail("unexpected end in object") }
      if bytes[i] == UInt8(ascii: ",") {
        i += 1
        continue
      }
      guard bytes[i] == UInt8(ascii: "}") else { throw fail("expected ',' or '}'") }
      i += 1
      return JSONObject(members: members)
    }
  }

  /// A key for an error message, shortened: the message may go back to the peer that sent it.
  static func quoted(_ key: String) -> String {
    key.count <= 32 ? "'\(key)'" : "'\(key.prefix(32))...'"
  }

  mutating func literal(_ word: StaticString) throws(JSONParseError) {
    let n = word.utf8CodeUnitCount
    guard i + n <= bytes.count else { throw fail("unexpected end") }
    for k in 0..<n where bytes[i + k] != word.utf8Start[k] {
      throw fail("invalid literal")
    }
    i += n
  }

  mutating func number() throws(JSONParseError) -> Double {
    let start = i
    if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
    guard i < bytes.count, (48...57).contains(bytes[i]) else { throw fail("invalid value") }
    if bytes[i] == 48 {
      i += 1
    } else {
      while i < bytes.count, (48...57).contains(bytes[i]) { i += 1 }
    }
    if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
      i += 1
      let f = i
      while i < bytes.count, (48...57).contains(bytes[i]) { i += 1 }
      guard i > f else { throw fail("invalid number") }
    }
    if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
      i += 1
      if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
      let e = i
      while i < bytes.count, (48...57).contains(bytes[i]) { i += 1 }
      guard i > e else { throw fail("invalid number") }
    }
    guard i - start <= 64, let v = Double(String(decoding: bytes[start..<i], as: UTF8.self)), v.isFinite
    else {
      throw JSONParseError(offset: start, reason: "invalid number")
    }
    return v
  }

  mutating func hex4() throws(JSONParseError) -> UInt32 {
    guard i + 4 <= bytes.count else { throw fail("short \\u escape") }
    var v: UInt32 = 0
    for _ in 0..<4 {
      let c = bytes[i]
      let d: UInt32
      switch c {
      case 48...57: d = UInt32(c - 48)
      case 65...70: d = UInt32(c - 55)
      case 97...102: d = UInt32(c - 87)
      default: throw fail("bad \\u escape")
      }
      v = v << 4 | d
      i += 1
    }
    return v
  }

  mutating func string() throws(JSONParseError) -> String {
    i += 1  // opening quote
    var out: [UInt8] = []
    while true {
      guard i < bytes.count else { throw fail("unterminated string") }
      let c = bytes[i]
      if c == UInt8(ascii: "\"") {
        i += 1
        break
      }
      if c < 0x20 { throw fail("control character in string") }
      if c != UInt8(ascii: "\\") {
        out.append(c)
        i += 1
        continue
      }
      i += 1
      guard i < bytes.count else { throw fail("unterminated escape") }
      let e = bytes[i]
      i += 1
      switch e {
      case UInt8(ascii: "\""): out.append(0x22)
      case UInt8(ascii: "\\"): out.append(0x5C)
      case UInt8(ascii: "/"): out.append(0x2F)
      case UInt8(ascii: "b"): out.append(0x08)
      case UInt8(ascii: "f"): out.append(0x0C)
      case UInt8(ascii: "n"): out.append(0x0A)
      case UInt8(ascii: "r"): out.append(0x0D)
      case UInt8(ascii: "t"): out.append(0x09)
      case UInt8(ascii: "u"):
        var scalar = try hex4()
        if (0xD800...0xDBFF).contains(scalar) {
          guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
            throw fail("lone surrogate")
          }
          i += 2
          let low = try hex4()
          guard (0xDC00...0xDFFF).contains(low) else { throw fail("bad surrogate pair") }
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(scalar) {
          throw fail("lone surrogate")
        }
        guard let u = Unicode.Scalar(scalar) else { throw fail("invalid code point") }
        out.append(contentsOf: Array(String(Character(u)).utf8))
      default:
        throw fail("invalid escape")
      }
    }
    // Invalid UTF-8 is rejected rather than silently repaired.
    guard let s = String(validating: out, as: UTF8.self) else { throw fail("invalid UTF-8 in string") }
    return s
  }
}

extension Double {
  /// ⌊log10(self)⌋ for a positive finite value, by comparison with exact powers of ten.
  fileprivate var exponent10: Int {
    var e = 0
    var v = self
    while v >= 10 {
      v /= 10
      e += 1
    }
    while v < 1, e > -400 {
      v *= 10
      e -= 1
    }
    return e
  }
}
