import Testing

@testable import LocSystem

/// A connection's output queue, without a socket: whatever the socket takes at each write
/// (1 byte, 2, 7, or all), the bytes go out whole and in order, the count of bytes waiting
/// follows them, and a line half written is what must be finished before last words.
@Suite struct OutputQueueTests {
  /// Writes everything queued, `take` bytes at most a write (0: all the socket is given);
  /// returns the bytes in the order written, and checks the count at every step.
  static func drain(_ queue: inout OutputQueue, take: Int) -> [UInt8] {
    var out: [UInt8] = []
    while let oldest = queue.first {
      let left = oldest.line.count - oldest.offset
      let n = take > 0 ? min(take, left) : left
      let before = queue.byteCount
      out += oldest.line[oldest.offset..<oldest.offset + n]
      queue.wrote(n)
      #expect(queue.byteCount == before - n)
    }
    queue.compact()
    return out
  }

  static let lines: [[UInt8]] = (0..<50).map { i in
    Array(("line \(i) " + String(repeating: "z", count: i) + "\n").utf8)
  }

  @Test func everyWriteSizeSendsTheSameBytes() {
    let all = Self.lines.flatMap { $0 }
    for take in [1, 2, 7, 0] {
      var queue = OutputQueue()
      for line in Self.lines { _ = queue.append(line) }
      #expect(queue.byteCount == all.count)
      #expect(Self.drain(&queue, take: take) == all, "write size \(take)")
      #expect(queue.isEmpty)
      #expect(queue.byteCount == 0)
    }
  }

  @Test func aLinePartlyWrittenDirectlyIsQueuedFromWhereItStopped() {
    // The connection wrote 3 bytes of "hello\n" itself and queues the rest.
    var queue = OutputQueue()
    #expect(queue.append(Array("hello\n".utf8), from: 3) == 3)
    #expect(queue.byteCount == 3)
    #expect(Self.drain(&queue, take: 2) == Array("lo\n".utf8))
  }

  @Test func theUnfinishedLineIsTheRestOfTheOldest() {
    var queue = OutputQueue()
    _ = queue.append(Array("first\n".utf8))
    _ = queue.append(Array("second\n".utf8))
    #expect(queue.unfinished == [])  // nothing of it went yet
    queue.wrote(2)
    #expect(queue.unfinished == Array("rst\n".utf8))
    queue.removeAll()
    #expect(queue.isEmpty && queue.byteCount == 0 && queue.first == nil)
  }

  @Test func manyLinesInterleavedWithWritesStayInOrder() {
    // More than 1024 lines written, room given back between rounds, more queued meanwhile.
    var queue = OutputQueue()
    var expected: [UInt8] = []
    var out: [UInt8] = []
    for round in 0..<3 {
      for i in 0..<1500 {
        let line = Array("\(round)-\(i)\n".utf8)
        expected += line
        _ = queue.append(line)
      }
      out += Self.drain(&queue, take: 7)
    }
    #expect(out == expected)
  }
}
