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
    // The parser reads the bytes where they lie when they are contiguous (an array, a slice
    // of one, a buffer): no copy, and no bounds check a byte.
    let parsed = bytes.withContiguousStorageIfAvailable { buffer in
      parse(buffer: buffer, maxDepth: maxDepth, maxMembers: maxMembers)
    }
    let result =
      parsed
      ?? Array(bytes).withUnsafeBufferPointer { buffer in
        parse(buffer: buffer, maxDepth: maxDepth, maxMembers: maxMembers)
      }
    return try result.get()
  }

  private static func parse(
    buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int, maxMembers: Int
  ) -> Result<JSON, JSONParseError> {
    var parser = JSONParser(bytes: buffer, maxDepth: maxDepth, maxMembers: maxMembers)
    return Result { () throws(JSONParseError) -> JSON in
      parser.skipSpace()
      let value = try parser.value(depth: 0)
      parser.skipSpace()
      guard parser.i == buffer.count else {
        throw JSONParseError(offset: parser.i, reason: "trailing characters")
      }
      return value
    }
  }

  /// Parses one JSON value from a string.
  public static func parse(
    _ text: String, maxDepth: Int = 32, maxMembers: Int = JSON.defaultMaxMembers
  ) throws(JSONParseError) -> JSON {
    try parse(text.utf8, maxDepth: maxDepth, maxMembers: maxMembers)
  }
}

/// Reads one value from bytes the caller keeps alive and unchanged while it runs.
struct JSONParser {
  let bytes: UnsafeBufferPointer<UInt8>
  let maxDepth: Int
  let maxMembers: Int
  var i = 0

  /// Up to this many members, a duplicate key is looked for by comparing with each (no
  /// allocation, and faster than hashing for the small objects that are the rule); past it a
  /// hash set takes over, so an object of n members costs O(n), not O(n²). Swift's `Hasher`
  /// is seeded per process, so a peer cannot send keys chosen to collide.
  static let linearScanLimit = 32

  init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, maxMembers: Int) {
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
    // Room for the members of most objects at once: growing 1, 2, 4, 8 one at a time was a
    // fifth of the work of parsing a status reply.
    members.reserveCapacity(8)
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
        duplicate = members.contains { JSONObject.same($0.key, key) }
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
    if let v = JSONParser.exactly(bytes, start, i) { return v }
    guard i - start <= 64,
      let v = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)),
      v.isFinite
    else {
      throw JSONParseError(offset: start, reason: "invalid number")
    }
    return v
  }

  /// The largest integer below which every integer is a Double exactly: 2^53.
  static let exactMantissa: UInt64 = 1 << 53

  /// Powers of ten that a Double holds exactly.
  static let exactPowersOfTen: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { v, _ in v * 10 } }

  /// A number already checked for syntax, when it is a decimal of at most 2^53 in its digits
  /// scaled by at most 10^22: then one multiplication or division of two exact doubles is
  /// the correctly rounded value, the same that parsing the text gives (Clinger's fast
  /// path). Nil for everything else, which the full conversion handles.
  static func exactly(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
    var k = start
    let negative = bytes[k] == UInt8(ascii: "-")
    if negative { k += 1 }
    var mantissa: UInt64 = 0
    var scale = 0
    var inFraction = false
    while k < end {
      let c = bytes[k]
      if c == UInt8(ascii: ".") {
        inFraction = true
      } else if c &- 48 < 10 {
        guard mantissa <= JSONParser.exactMantissa / 10 else { return nil }
        mantissa = mantissa * 10 + UInt64(c - 48)
        guard mantissa <= JSONParser.exactMantissa else { return nil }
        if inFraction { scale -= 1 }
      } else {
        break  // an exponent
      }
      k += 1
    }
    if k < end {
      k += 1  // e or E
      var exponentNegative = false
      if bytes[k] == UInt8(ascii: "+") || bytes[k] == UInt8(ascii: "-") {
        exponentNegative = bytes[k] == UInt8(ascii: "-")
        k += 1
      }
      guard end - k <= 3 else { return nil }
      var exponent = 0
      while k < end {
        exponent = exponent * 10 + Int(bytes[k] - 48)
        k += 1
      }
      scale += exponentNegative ? -exponent : exponent
    }
    guard (-22...22).contains(scale) else { return nil }
    let m = Double(mantissa)
    let v = scale < 0 ? m / exactPowersOfTen[-scale] : m * exactPowersOfTen[scale]
    return negative ? -v : v
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
    // The rule on the wire: no escape up to the closing quote. Then the string is made
    // from the bytes where they lie (one validation, no copy into a scratch array first).
    var end = i
    var ascii = true
    while end < bytes.count {
      let c = bytes[end]
      if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 { break }
      if c >= 0x80 { ascii = false }
      end += 1
    }
    if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
      let text = UnsafeBufferPointer(rebasing: bytes[i..<end])
      i = end + 1
      if ascii { return String(decoding: text, as: UTF8.self) }
      // Invalid UTF-8 is rejected rather than silently repaired.
      guard let s = String(validating: text, as: UTF8.self) else { throw fail("invalid UTF-8 in string") }
      return s
    }
    return try escapedString()
  }

  /// A string with escapes (or one that ends badly), from after its opening quote.
  mutating func escapedString() throws(JSONParseError) -> String {
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
