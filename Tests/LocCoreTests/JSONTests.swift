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

  @Test func limitsDepth() throws {
    let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
    #expect(throws: JSONParseError.self) { try JSON.parse(deep, maxDepth: 32) }
    _ = try JSON.parse(deep, maxDepth: 100)
  }

  @Test func rejectsInvalidUTF8() {
    #expect(throws: JSONParseError.self) { try JSON.parse([0x22, 0xFF, 0x22]) }
  }
}
