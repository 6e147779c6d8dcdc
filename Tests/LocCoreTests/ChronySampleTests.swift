import LocCore
import Testing

/// The datagram chronyd's SOCK refclock reads (refclock_sock.c's struct sock_sample): a
/// timeval, the offset as a double, pulse, leap, padding and the magic number, in the
/// machine's byte order and C's layout for both sizes of timeval.
@Suite struct ChronySampleTests {
  func int64(_ b: [UInt8], _ at: Int, _ size: Int) -> Int64 {
    var v: Int64 = 0
    for i in (0..<size).reversed() { v = v << 8 | Int64(b[at + i]) }
    return v
  }

  func double(_ b: [UInt8], _ at: Int) -> Double {
    Double(bitPattern: UInt64(bitPattern: int64(b, at, 8)))
  }

  @Test func sixtyFourBitTimevalGivesFortyBytes() throws {
    let read = Instant(iso8601: "2026-12-03T08:00:01.250000Z")!
    let sample = ChronySample(readAt: read, receiverTime: Instant(iso8601: "2026-12-03T08:00:02Z")!)
    #expect(sample.offset == 0.75)
    let b = sample.bytes(timevalSize: 16)
    try #require(b.count == 40)
    #expect(int64(b, 0, 8) == read.microsecondsSinceEpoch / 1_000_000)
    #expect(int64(b, 8, 8) == 250_000)
    #expect(double(b, 16) == 0.75)
    #expect(int64(b, 24, 4) == 0 && int64(b, 28, 4) == 0 && int64(b, 32, 4) == 0)
    #expect(int64(b, 36, 4) == 0x534f_434b)  // "SOCK"
  }

  @Test func thirtyTwoBitTimevalGivesThirtyTwoBytes() throws {
    let read = Instant(iso8601: "2026-12-03T08:00:01.999999Z")!
    let sample = ChronySample(readAt: read, receiverTime: Instant(iso8601: "2026-12-03T08:00:01Z")!)
    let b = sample.bytes(timevalSize: 8)
    try #require(b.count == 32)
    #expect(int64(b, 0, 4) == read.microsecondsSinceEpoch / 1_000_000)
    #expect(int64(b, 4, 4) == 999_999)
    #expect(double(b, 8) == -0.999999)
    #expect(int64(b, 28, 4) == 0x534f_434b)
  }

  /// Before 1970 (a clock reset to zero and then behind): the microseconds stay 0...999999.
  @Test func aTimeBeforeTheEpochKeepsItsFractionPositive() {
    let sample = ChronySample(
      readAt: Instant(microsecondsSinceEpoch: -1_500_000), receiverTime: Instant(microsecondsSinceEpoch: 0))
    let b = sample.bytes(timevalSize: 16)
    #expect(int64(b, 0, 8) == -2)
    #expect(int64(b, 8, 8) == 500_000)
    #expect(sample.offset == 1.5)
  }
}
