import LocCore
import Testing

/// The two sinks agree: whatever is written through `JSONBytes` is the serialization of what
/// `JSONTree` builds from the same writing.
@Suite struct JSONSinkTests {
  /// Writes `value` through `sink` a member or an element at a time.
  func write(_ value: JSON, to sink: inout some JSONSink, split: Bool) {
    switch value {
    case .object(let o) where split:
      sink.openObject()
      for m in o.members {
        sink.key(m.key)
        write(m.value, to: &sink, split: true)
      }
      sink.closeObject()
    case .array(let a) where split:
      sink.array(a) { s, element in write(element, to: &s, split: true) }
    default: sink.value(value)
    }
  }

  func random(_ rng: inout some RandomNumberGenerator, depth: Int) -> JSON {
    switch Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &rng) {
    case 0: return .null
    case 1: return .bool(Bool.random(using: &rng))
    case 2: return .number(Double(Int.random(in: -1_000_000...1_000_000, using: &rng)) / 64)
    case 3:
      return .string(
        ["", "a", "é \"q\" \\ \n\t\u{1}", "Europe/Oslo", "2026-06-21T19:57:21.316Z"].randomElement(
          using: &rng)!)
    case 4: return .int(Int.random(in: Int(-1e15)...Int(1e15), using: &rng))
    case 5:
      var o = JSONObject()
      for i in 0..<Int.random(in: 0...6, using: &rng) { o["k\(i)"] = random(&rng, depth: depth + 1) }
      return .object(o)
    default:
      return .array((0..<Int.random(in: 0...5, using: &rng)).map { _ in random(&rng, depth: depth + 1) })
    }
  }

  @Test func bothSinksWriteTheSameValue() {
    var rng = SystemRandomNumberGenerator()
    for _ in 0..<500 {
      let value = random(&rng, depth: 0)
      for split in [false, true] {
        var bytes = JSONBytes()
        var tree = JSONTree()
        write(value, to: &bytes, split: split)
        write(value, to: &tree, split: split)
        #expect(tree.root == value)
        #expect(String(decoding: bytes.bytes, as: UTF8.self) == value.serialized, "\(value.serialized)")
      }
    }
  }

  @Test func countersAreAnObjectInOrder() {
    var bytes = JSONBytes()
    bytes.object { s in
      s.key("c")
      s.counters([Counter("b", 2), Counter("a", 1)])
      s.member("n", .null)
    }
    #expect(String(decoding: bytes.bytes, as: UTF8.self) == #"{"c":{"b":2,"a":1},"n":null}"#)
  }
}
