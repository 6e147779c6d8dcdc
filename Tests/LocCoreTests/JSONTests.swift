import LocCore
import Testing

@Suite struct JSONTests {
  @Test func roundTrip() throws {
    let text = #"{"a":1,"b":[true,false,null],"c":"x\"\n\u0001é","d":-2.5,"e":{}}"#
    let v = try JSON.parse(text)
    #expect(v["a"]?.number == 1)
    #expect(v["c"]?.string == "x\"\n\u{1}é")
    #expect(v.serialized == text)
  }

  @Test func keepsKeyOrder() {
    var o = JSONObject()
    o["z"] = .int(1)
    o["a"] = .int(2)
    o["z"] = .int(3)
    #expect(JSON.object(o).serialized == #"{"z":3,"a":2}"#)
  }

  @Test(arguments: [
    "", "{", "[1,]", "{\"a\" 1}", "nul", "01", "1.", "\"\\x\"", "\"\u{1}\"", "[1] 2", "{\"a\":1,\"a\":2}",
    "\"\\ud800\"", "1e999",
  ])
  func rejectsInvalid(_ text: String) {
    #expect(throws: JSONParseError.self) { try JSON.parse(text) }
  }

  /// The parser reads contiguous bytes where they lie (an array, a slice in the middle of
  /// one) and copies anything else first: the value and an error's offset are the same
  /// whichever the caller hands it.
  @Test func parsesAnyCollectionOfBytesAlike() throws {
    let text = #"{"a":[1,2.5,"x\ty"],"b":{"c":null}}"#
    let bytes = Array(text.utf8)
    let expected = try JSON.parse(bytes)
    let framed = Array("junk\n".utf8) + bytes + Array("\nmore".utf8)
    let slice = framed[5..<(5 + bytes.count)]
    #expect(try JSON.parse(slice) == expected)
    #expect(try JSON.parse(bytes.lazy.map { $0 }) == expected)  // not contiguous: copied
    #expect(try JSON.parse(text) == expected)
    let broken = Array(#"{"a":1,"a":2}"#.utf8)
    for input in [
      AnyCollection(broken), AnyCollection(broken.lazy.map { $0 }),
      AnyCollection(("xx" + #"{"a":1,"a":2}"#).utf8.dropFirst(2)),
    ] {
      do {
        _ = try JSON.parse(input)
        Issue.record("a duplicate key was accepted")
      } catch {
        #expect(error.offset == 7, "\(error)")
      }
    }
  }

  /// A number of more than 15 significant digits is written to 15 (JSON.numberText), and
  /// what is written is a fixed point: it reads back to a value that writes the same text
  /// (make fuzz's json target found 274111111111111.040, whose round trip it had required to
  /// be exact).
  @Test func writtenNumbersAreAFixedPoint() throws {
    let value = try JSON.parse(#"{"k":274111111111111.040}"#)
    let written = value.serialized
    #expect(written == #"{"k":274111111111111}"#)
    #expect(try JSON.parse(written).serialized == written)
  }

  @Test func limitsDepth() throws {
    let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
    #expect(throws: JSONParseError.self) { try JSON.parse(deep, maxDepth: 32) }
    _ = try JSON.parse(deep, maxDepth: 100)
  }

  @Test func rejectsInvalidUTF8() {
    #expect(throws: JSONParseError.self) { try JSON.parse([0x22, 0xFF, 0x22]) }
    // With an escape after it too (the string is then read byte by byte).
    #expect(throws: JSONParseError.self) { try JSON.parse(Array(#""a"#.utf8) + [0xFF] + Array(#"\n""#.utf8)) }
  }

  /// A string without escapes is made from its bytes where they lie; one with escapes is
  /// decoded byte by byte. Both read the same text, and fail at the same places.
  @Test func stringsReadTheSameWithAndWithoutEscapes() throws {
    #expect(try JSON.parse(#""Zürich, 59°N""#) == .string("Zürich, 59°N"))
    #expect(try JSON.parse(#""Z\u00fcrich, 59\u00b0N""#) == .string("Zürich, 59°N"))
    #expect(try JSON.parse(#""tab\there""#) == .string("tab\there"))
    #expect(
      try JSON.parse(#"["", "a", "\"", "\\", "é\n"]"#)
        == .array([.string(""), .string("a"), .string("\""), .string("\\"), .string("é\n")]))
    #expect(try JSON.parse(#"{"k":"v","ü":"w"}"#)["ü"] == .string("w"))
    let control = try #require(throws: JSONParseError.self) { try JSON.parse([0x22, 0x61, 0x0A, 0x22]) }
    #expect(control.reason == "control character in string")
    #expect(control.offset == 2)
    let open = try #require(throws: JSONParseError.self) { try JSON.parse(#""abc"#) }
    #expect(open.reason == "unterminated string")
  }
}

/// The work one JSON text can cause is bounded by its bytes and by the member bound: issue 10
/// found a 59 KB line of 6,000 keys costing 131 ms before the hello, because each key was
/// looked up among the members before it. `make bench` (bench/15-json.sh) prints the time per
/// member as objects grow; these tests pin the behaviour.
@Suite struct JSONBoundsTests {
  /// `{"k0":0,"k1":1,...}`, with `duplicate` (if any) as the last key once more.
  static func object(_ members: Int, duplicate: Int? = nil) -> String {
    var keys = (0..<members).map { "k\($0)" }
    if let duplicate { keys.append("k\(duplicate)") }
    return "{" + keys.enumerated().map { "\"\($0.element)\":\($0.offset % 10)" }.joined(separator: ",") + "}"
  }

  @Test func anObjectPastTheMemberBoundIsRejectedAtTheFirstMemberTooMany() throws {
    // The line of issue 10: 6,000 members. Read up to the bound, then refused where the
    // 1,025th key starts (offset counted from the text: one byte for `{`, then the members).
    let line = Self.object(6000)
    let prefix = Self.object(1024).dropLast()  // `{` and 1,024 members, without the `}`
    let error = try #require(throws: JSONParseError.self) { try JSON.parse(line) }
    #expect(error.reason == "more than 1024 members in one object")
    #expect(error.offset == prefix.utf8.count + 1)  // past the comma that follows member 1,024
    // At the bound it is read, in order.
    let full = try JSON.parse(Self.object(1024))
    #expect(full.object?.members.count == 1024)
    #expect(full.object?.keys.last == "k1023")
    #expect(full["k1023"]?.number == 3)
    // A caller that needs more says so; a caller that needs fewer too.
    #expect(try JSON.parse(line, maxMembers: 6000).object?.members.count == 6000)
    #expect(throws: JSONParseError.self) { try JSON.parse(#"{"a":1,"b":2}"#, maxMembers: 1) }
    // The bound is per object, not per text: two objects of 600 each pass.
    _ = try JSON.parse("[\(Self.object(600)),\(Self.object(600))]")
  }

  @Test(arguments: [0, 3, 30, 31, 32, 33, 499])
  func aDuplicateKeyIsAnErrorWhereverItIs(_ which: Int) throws {
    // Small objects (up to 32 members) are checked by comparing keys, larger ones by
    // hashing; both must catch it, on either side of the switch.
    let members = which < 32 ? 32 : 500
    let text = Self.object(members, duplicate: which)
    let error = try #require(throws: JSONParseError.self) { try JSON.parse(text) }
    #expect(error.reason == "duplicate key 'k\(which)'")
    #expect(error.offset == text.utf8.count - "\"k\(which)\":\(members % 10)}".utf8.count)
    _ = try JSON.parse(Self.object(members))  // without the duplicate it is fine
  }

  @Test func aLongDuplicateKeyIsShortenedInTheMessage() throws {
    let key = String(repeating: "x", count: 5000)
    let error = try #require(throws: JSONParseError.self) {
      try JSON.parse(#"{"\#(key)":1,"\#(key)":2}"#)
    }
    #expect(error.reason == "duplicate key '\(String(repeating: "x", count: 32))...'")
  }

  @Test func nestingIsBoundedForObjectsAsForArrays() throws {
    let deep = String(repeating: #"{"a":"#, count: 40) + "1" + String(repeating: "}", count: 40)
    let error = try #require(throws: JSONParseError.self) { try JSON.parse(deep) }
    #expect(error.reason == "nesting deeper than 32")
    _ = try JSON.parse(deep, maxDepth: 40)
  }
}

/// Request ids come back as they were sent (issue 15: ids from 10^15 were echoed as floats).
@Suite struct JSONIntegerTests {
  /// IEEE 754 binary64 has a 53-bit significand: every integer of magnitude below 2^53
  /// (9,007,199,254,740,992) is exact in a Double, so it can be written back digit for
  /// digit; from 2^53 on not every integer is representable and the exponent form is used.
  @Test(arguments: ["1000000000000000", "4503599627370497", "9007199254740991", "-9007199254740991"])
  func integersBelowTwoToThe53AreWrittenAsIntegers(_ text: String) throws {
    #expect(try JSON.parse(text).serialized == text)
  }

  @Test func fromTwoToThe53WhatIsWrittenReadsBackAsTheSameNumber() throws {
    for n in [9_007_199_254_740_992.0, 1e19, -1e300] {
      #expect(try JSON.parse(JSON.number(n).serialized).number == n)
    }
  }
}

/// The parser reads most numbers without the text-to-double conversion (a decimal of at most
/// 2^53 in its digits, scaled by at most 10^22: one exact multiplication or division). Every
/// number must read as the conversion reads it, bit for bit, on either side of those bounds.
@Suite struct JSONNumberFastPathTests {
  func read(_ text: String) throws -> Double? { try JSON.parse(text).number }

  @Test func agreesWithTheConversionOnRandomDecimals() throws {
    var rng = SystemRandomNumberGenerator()
    for _ in 0..<20_000 {
      var text = Bool.random(using: &rng) ? "-" : ""
      let integerDigits = Int.random(in: 1...17, using: &rng)
      text += String(Int.random(in: 1...9, using: &rng))
      for _ in 1..<integerDigits { text += String(Int.random(in: 0...9, using: &rng)) }
      if Bool.random(using: &rng) { text = text.hasPrefix("-") ? "-0" : "0" }
      if Bool.random(using: &rng) {
        text += "."
        for _ in 0..<Int.random(in: 1...20, using: &rng) {
          text += String(Int.random(in: 0...9, using: &rng))
        }
      }
      if Int.random(in: 0..<4, using: &rng) == 0 {
        text += ["e", "E"].randomElement(using: &rng)! + ["", "+", "-"].randomElement(using: &rng)!
        text += String(Int.random(in: 0...40, using: &rng))
      }
      let expected = try #require(Double(text))
      let got = try #require(try read(text))
      #expect(got.bitPattern == expected.bitPattern, "\(text)")
    }
  }

  @Test(arguments: [
    "0", "-0", "9007199254740992", "9007199254740993", "90071992547409921", "0.1", "-59.913900",
    "1e22", "1e23", "1.7976931348623157e308", "5e-324", "123456789012345678901234567890",
    "0.000000000000000000000000001", "4.35", "10.7522", "1E-22", "1e-23",
  ])
  func edges(_ text: String) throws {
    let expected = try #require(Double(text))
    #expect(try read(text)?.bitPattern == expected.bitPattern)
  }

  @Test func minusZeroKeepsItsSign() throws {
    #expect(try read("-0")?.sign == .minus)
    #expect(try read("-0.0")?.sign == .minus)
  }

  /// firstIndex(of:in:) (memchr(3)) agrees with Array.firstIndex(of:), at every position.
  @Test func firstIndexOfAByteIsArraysAnswer() {
    #expect(firstIndex(of: 0x0A, in: []) == nil)
    for length in [1, 7, 8, 9, 31, 64, 300] {
      var bytes = [UInt8](repeating: 0x41, count: length)
      #expect(firstIndex(of: 0x0A, in: bytes) == nil)
      for at in [0, length / 2, length - 1] {
        bytes[at] = 0x0A
        #expect(firstIndex(of: 0x0A, in: bytes) == bytes.firstIndex(of: 0x0A))
      }
    }
  }
}
