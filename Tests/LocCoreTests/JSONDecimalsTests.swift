import LocCore
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `JSON.writeNumber(_:decimals:to:)` (locctl decode's numbers) against the general path it
/// replaces: the rounded double (rounded as the wire's `WireFormat.round` does, with pow)
/// written by the JSON writer, byte for byte.
@Suite struct JSONDecimalsTests {
  static func general(_ value: Double, _ decimals: Int) -> String {
    let scale = pow(10, Double(decimals))
    return JSON.number((value * scale).rounded() / scale).serialized
  }

  static func fast(_ value: Double, _ decimals: Int) -> String {
    var out: [UInt8] = []
    JSON.writeNumber(value, decimals: decimals, to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  @Test(arguments: [
    0, -0.0, 0.0004, -0.0004, 0.0005, -0.0005, 13.6, 14.2, 0.013, 1, -1, 99.999_5, 359.999_95, 0.1 + 0.2,
    123_456_789.123_456, -45.877_567, 1e11, 999_999_999.999_6, 1e12, 1e13, 4e15, 1e300, -1e300,
    .infinity, -.infinity, .nan, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
  ])
  func edgeCasesWriteWhatTheJSONWriterWrites(_ value: Double) {
    for decimals in 0...6 {
      #expect(Self.fast(value, decimals) == Self.general(value, decimals), "\(value) to \(decimals)")
    }
  }

  @Test func randomValuesWriteWhatTheJSONWriterWrites() {
    var rng = SplitMix64(seed: 16)
    var mismatches: [String] = []
    for i in 0..<200_000 {
      // Magnitudes from 1e-7 to 1e13, both signs; some values on the decimal grid exactly.
      let magnitude = pow(10, Double(rng.next() % 200) / 10 - 7)
      var value = (Double(rng.next() >> 11) / Double(1 << 53)) * magnitude
      if i % 2 == 1 { value = -value }
      if i % 5 == 0 { value = (value * 1000).rounded() / 1000 }
      let decimals = Int(rng.next() % 7)
      if Self.fast(value, decimals) != Self.general(value, decimals) {
        mismatches.append(
          "\(value) to \(decimals): \(Self.fast(value, decimals)) vs \(Self.general(value, decimals))")
      }
    }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
  }

  @Test func integersWriteWhatTheJSONWriterWrites() {
    for value in [
      0, 1, -1, 9, 10, 12, -120, 1_000_000, Int(Int32.max), 9_007_199_254_740_991, -9_007_199_254_740_991,
    ] {
      var out: [UInt8] = []
      JSON.writeInteger(value, to: &out)
      #expect(String(decoding: out, as: UTF8.self) == JSON.int(value).serialized)
    }
  }
}
