import Glibc
import LocSystem
import Testing

@Suite struct ReadBufferTests {
  /// `count` bytes of a pattern that shows where each byte came from.
  static func pattern(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) } }

  /// One `readAvailable`: the chunk sizes `body` saw, the bytes, and the outcome.
  static func round(_ reader: ReadBuffer, _ stream: borrowing FileDescriptor, stopAfter: Int = .max)
    -> (chunks: [Int], bytes: [UInt8], outcome: ReadBuffer.Outcome)
  {
    var chunks: [Int] = []
    var bytes: [UInt8] = []
    let outcome = reader.readAvailable(from: stream) { chunk in
      chunks.append(chunk.count)
      bytes += chunk
      return chunks.count < stopAfter
    }
    return (chunks, bytes, outcome)
  }

  @Test func anEmptyStreamWouldBlockAndCallsNothing() throws {
    let pipe = try DescriptorPair.pipe(nonBlocking: true)
    let round = ReadBufferTests.round(ReadBuffer(chunkSize: 64, maxBytesPerWakeup: 256), pipe.first)
    #expect(round.chunks.isEmpty)
    #expect(round.outcome == .wouldBlock)
  }

  @Test func readsInChunksAndStopsAtTheBudget() throws {
    let pipe = try DescriptorPair.pipe(nonBlocking: true)
    let sent = ReadBufferTests.pattern(10_000)  // fits a pipe's 64 KiB buffer (pipe(7))
    try pipe.second.writeAll(sent)
    let reader = ReadBuffer(chunkSize: 1000, maxBytesPerWakeup: 2500)
    // 2,500 bytes per call: two full chunks, then a read of only the 500 left in the budget.
    var received: [UInt8] = []
    for _ in 0..<4 {
      let round = ReadBufferTests.round(reader, pipe.first)
      #expect(round.chunks == [1000, 1000, 500])
      #expect(round.outcome == .budgetSpent)
      received += round.bytes
    }
    // All 10,000 are read; the pipe is empty now.
    let last = ReadBufferTests.round(reader, pipe.first)
    #expect(last.chunks.isEmpty)
    #expect(last.outcome == .wouldBlock)
    #expect(received == sent)
  }

  @Test func aShortReadEndsTheRound() throws {
    let pipe = try DescriptorPair.pipe(nonBlocking: true)
    try pipe.second.writeAll(ReadBufferTests.pattern(1500))
    // 1,000 then 500 of 1,000 asked: short, so most likely empty; no EAGAIN read is made.
    let round = ReadBufferTests.round(ReadBuffer(chunkSize: 1000, maxBytesPerWakeup: 8000), pipe.first)
    #expect(round.chunks == [1000, 500])
    #expect(round.outcome == .shortRead)
  }

  @Test func theEndComesAfterTheLastBytes() throws {
    let pipe = try DescriptorPair.pipe(nonBlocking: true)
    let reader = pipe.first
    let writer = pipe.second
    try writer.writeAll(Array("$GPGGA,partial".utf8))
    try writer.close()
    let buffer = ReadBuffer(chunkSize: 4096, maxBytesPerWakeup: 65536)
    let first = ReadBufferTests.round(buffer, reader)
    #expect(first.bytes == Array("$GPGGA,partial".utf8))
    #expect(first.outcome == .shortRead)
    let second = ReadBufferTests.round(buffer, reader)
    #expect(second.chunks.isEmpty)
    #expect(second.outcome == .endOfFile)
  }

  @Test func theBodyCanStopTheRound() throws {
    let pipe = try DescriptorPair.pipe(nonBlocking: true)
    try pipe.second.writeAll(ReadBufferTests.pattern(5000))
    let round = ReadBufferTests.round(
      ReadBuffer(chunkSize: 1000, maxBytesPerWakeup: 5000), pipe.first, stopAfter: 2)
    #expect(round.chunks == [1000, 1000])
    #expect(round.outcome == .stopped)
  }

  @Test func aFailingReadIsReported() throws {
    let pipe = try DescriptorPair.pipe(nonBlocking: true)
    // A pipe's write end cannot be read: read(2) fails with EBADF (pipe(7)).
    let round = ReadBufferTests.round(ReadBuffer(chunkSize: 64, maxBytesPerWakeup: 64), pipe.second)
    #expect(round.outcome == .failed(Errno(call: "read", code: EBADF)))
  }

  @Test func readingFromInsideItsOwnBodyIsABug() async {
    await #expect(processExitsWith: .failure) {
      let pipe = try DescriptorPair.pipe(nonBlocking: true)
      try pipe.second.writeAll([1, 2, 3])
      let reader = ReadBuffer(chunkSize: 64, maxBytesPerWakeup: 64)
      _ = reader.readAvailable(from: pipe.first) { _ in
        _ = reader.readAvailable(from: pipe.first) { _ in true }
        return true
      }
    }
  }
}
