import LocProtocol
import Testing

/// The control socket's request framing, without a socket: the same bytes give the same
/// lines and the same errors however the kernel cut them into reads (as the NMEA framer's
/// tests in LocCoreTests do), an overlong line is reported once and skipped to its newline,
/// and the framer stops after each frame so the connection can keep the rest for its next
/// turn.
@Suite struct ControlLineFramerTests {
  /// A frame with the chunk-dependent part (whether an overlong line's newline came in the
  /// same read) left out: what the client sees, one line handled or one error sent.
  enum Seen: Equatable {
    case line(String)
    case overlong
  }

  /// Frames `bytes` in reads of `chunkSize` bytes (0: one read), lines of at most `limit`.
  static func frames(_ bytes: [UInt8], chunkSize: Int, limit: Int) -> [ControlLineFramer.Frame] {
    var framer = ControlLineFramer()
    var frames: [ControlLineFramer.Frame] = []
    let step = chunkSize > 0 ? chunkSize : max(1, bytes.count)
    var at = 0
    while at < bytes.count {
      frames += framer.frames(Array(bytes[at..<min(at + step, bytes.count)]), limit: limit)
      at += step
    }
    return frames
  }

  static func seen(_ frames: [ControlLineFramer.Frame]) -> [Seen] {
    frames.map { frame in
      switch frame {
      case .line(let bytes): return .line(String(decoding: bytes, as: UTF8.self))
      case .overlong: return .overlong
      }
    }
  }

  @Test func sameLinesAndErrorsAtEveryChunkSize() {
    // Limit 16. Reasoning, line by line: a plain line; CRLF (the CR dropped); an empty line
    // and a lone CR (both skipped, no error); exactly 16 bytes (kept); 16 bytes and a CR
    // (17 before the CR is dropped: overlong); 40 bytes (overlong, once); the line after
    // an overlong one is read again; a last line without a newline waits (not handed out).
    let exact = String(repeating: "e", count: 16)
    let input =
      "{\"id\":1}\n" + "{\"id\":2}\r\n" + "\n" + "\r\n" + exact + "\n" + exact + "\r\n"
      + String(repeating: "x", count: 40) + "\n" + "{\"id\":3}\n" + "{\"id\":4"
    let expected: [Seen] = [
      .line("{\"id\":1}"), .line("{\"id\":2}"), .line(exact), .overlong, .overlong, .line("{\"id\":3}"),
    ]
    let bytes = Array(input.utf8)
    for size in [1, 2, 7, 0] {
      #expect(Self.seen(Self.frames(bytes, chunkSize: size, limit: 16)) == expected, "chunk size \(size)")
    }
  }

  @Test func everyChunkSizeOfALongerStreamAgrees() {
    // Many short and long lines: every chunk size from 1 to 40 and the whole gives what
    // one read gives.
    var text = ""
    for i in 0..<60 { text += String(repeating: "ab", count: i % 13) + (i % 4 == 0 ? "\r\n" : "\n") }
    let bytes = Array(text.utf8)
    let whole = Self.seen(Self.frames(bytes, chunkSize: 0, limit: 20))
    #expect(whole.contains(.overlong))
    #expect(whole.count == 60 - 5)  // i % 13 == 0: five empty lines, skipped
    for size in 1...40 {
      #expect(Self.seen(Self.frames(bytes, chunkSize: size, limit: 20)) == whole, "chunk size \(size)")
    }
  }

  @Test func anOverlongLineCountsAsARequestOnlyWhenItEndsInTheRead() {
    // The connection spends a turn's budget on an overlong line that ended in the read,
    // as on a line; one cut before its end is refused as soon as it passes the limit and
    // its rest is skipped without a second error.
    let line = Array((String(repeating: "y", count: 30) + "\n").utf8)
    #expect(Self.frames(line, chunkSize: 0, limit: 16) == [.overlong(ended: true)])
    #expect(Self.frames(line, chunkSize: 1, limit: 16) == [.overlong(ended: false)])
    #expect(Self.frames(line, chunkSize: 20, limit: 16) == [.overlong(ended: false)])
  }

  @Test func stopsAfterEachFrameWithTheRestUnread() throws {
    // "a\n\nb\nc": the first frame ends at byte 2; the empty line is skipped with the
    // second; "c" is kept, and all bytes are used.
    var framer = ControlLineFramer()
    let bytes = Array("a\n\nb\nc".utf8)
    var start = 0
    try bytes.withUnsafeBytes { raw in
      #expect(framer.next(raw, from: &start, limit: 16) == .line(Array("a".utf8)))
      #expect(start == 2)
      #expect(framer.next(raw, from: &start, limit: 16) == .line(Array("b".utf8)))
      #expect(start == 5)
      #expect(framer.next(raw, from: &start, limit: 16) == nil)
      #expect(start == bytes.count)
      let more = Array("d\n".utf8)
      var at = 0
      let frame = try more.withUnsafeBytes { m in try #require(framer.next(m, from: &at, limit: 16)) }
      #expect(frame == .line(Array("cd".utf8)))
    }
  }

  @Test func aDroppedPendingLineIsForgotten() {
    var framer = ControlLineFramer()
    #expect(framer.frames(Array("half".utf8), limit: 16) == [])
    framer.dropPending()
    #expect(framer.frames(Array(" line\n".utf8), limit: 16) == [.line(Array(" line".utf8))])
  }

  /// At the end of the input the unfinished line is the last one (the gpsd face reads
  /// `?POLL;` without a newline so), unless it was being skipped as overlong.
  @Test func theEndOfTheInputGivesTheUnfinishedLine() {
    var framer = ControlLineFramer()
    #expect(framer.frames(Array("?VERSION;\n?POLL;\r".utf8), limit: 16) == [.line(Array("?VERSION;".utf8))])
    #expect(framer.finish() == Array("?POLL;".utf8))
    #expect(framer.finish() == nil, "given once")
    #expect(framer.frames(Array("0123456789abcdefXYZ".utf8), limit: 16) == [.overlong(ended: false)])
    #expect(framer.finish() == nil, "an overlong line is not a command")
    #expect(framer.frames(Array("ok\n".utf8), limit: 16) == [.line(Array("ok".utf8))], "empty again")
  }
}
