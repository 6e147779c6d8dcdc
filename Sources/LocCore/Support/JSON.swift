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
    get { members.first(where: { JSONObject.same($0.key, key) })?.value }
    set {
      if let i = members.firstIndex(where: { JSONObject.same($0.key, key) }) {
        if let newValue { members[i].value = newValue } else { members.remove(at: i) }
      } else if let newValue {
        members.append((key: key, value: newValue))
      }
    }
  }

  /// Whether two keys are equal. Unequal keys nearly always differ in length, which a
  /// native string knows without looking at its bytes; only keys of one length are compared
  /// (String's `==`, which may go through Unicode comparison, is what costs in a lookup).
  @inline(__always) static func same(_ a: String, _ b: String) -> Bool {
    a.utf8.count == b.utf8.count && a == b
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
      // Integers without a fraction, digit by digit.
      let k = Int64(n)
      if k < 0 { out.append(UInt8(ascii: "-")) }
      writeDigits(k < 0 ? -k : k, width: 1, to: &out)
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
    // A native string hands out its bytes without a copy; a bridged or lazy one is made
    // contiguous first.
    if s.utf8.withContiguousStorageIfAvailable({ writeEscaped($0, to: &out) }) == nil {
      var s = s
      s.withUTF8 { writeEscaped($0, to: &out) }
    }
    out.append(UInt8(ascii: "\""))
  }

  private static func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
    // Copy runs that need no escaping in one go: most strings (every key) are one run. A
    // plain loop over the bytes (an enumerated() with a where clause cost twice the
    // instructions a byte).
    var start = 0
    var i = 0
    while i < bytes.count {
      let b = bytes[i]
      guard b < 0x20 || b == 0x22 || b == 0x5C else {
        i += 1
        continue
      }
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
      i += 1
      start = i
    }
    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<bytes.count]))
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
