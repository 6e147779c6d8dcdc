import LocCore
import Testing

@Suite struct NMEAFramerTests {
  /// Frames `bytes` in chunks of `chunkSize` (0: at once), then finishes; returns the lines.
  static func frame(_ bytes: [UInt8], chunkSize: Int = 0, framer: NMEAFramer = NMEAFramer())
    -> (lines: [String], counters: NMEAFramer.Counters, framer: NMEAFramer)
  {
    var framer = framer
    var lines: [String] = []
    bytes.withUnsafeBytes { all in
      let step = chunkSize > 0 ? chunkSize : max(1, all.count)
      var offset = 0
      while offset < all.count {
        let end = min(offset + step, all.count)
        framer.feed(UnsafeRawBufferPointer(rebasing: all[offset..<end])) {
          lines.append(String(decoding: $0, as: UTF8.self))
        }
        offset = end
      }
    }
    framer.finish { lines.append(String(decoding: $0, as: UTF8.self)) }
    return (lines, framer.counters, framer)
  }

  static func frame(_ text: String, chunkSize: Int = 0) -> (lines: [String], counters: NMEAFramer.Counters) {
    let r = frame(Array(text.utf8), chunkSize: chunkSize)
    return (r.lines, r.counters)
  }

  @Test func everyLineEndingWorks() {
    for ending in ["\r\n", "\n", "\r", "\n\r"] {
      let r = Self.frame("$A,1*00" + ending + "$B,2*00" + ending)
      #expect(r.lines == ["$A,1*00", "$B,2*00"], "ending \(Array(ending.utf8))")
      #expect(r.counters.junkBytes == 0)
      #expect(r.counters.lines == 2)
    }
    let mixed = Self.frame("$A*00\r\n$B*00\n$C*00\r$D*00\n\n\r\r\n$E*00")
    #expect(mixed.lines == ["$A*00", "$B*00", "$C*00", "$D*00", "$E*00"])
    #expect(mixed.counters.unterminatedLines == 1)
  }

  @Test func junkBetweenLinesIsCountedAndSkipped() {
    let r = Self.frame(
      Array("\u{0}\u{0}xyz".utf8) + [0xFF, 0x80] + Array("$A*00\r\n+ 6: 28 (.....)\r\n$B*00\n".utf8))
    #expect(r.lines == ["$A*00", "$B*00"])
    #expect(r.counters.junkBytes == 7 + 15)
  }

  @Test func controlOrBinaryByteSpoilsTheLine() {
    // gp-320fw: a sentence cut by NUL bytes; et-332: ESC sequences before the checksum.
    let r = Self.frame(Array("$GPRMC,000346.03,A,4808".utf8) + [0, 0, 0] + Array("   \r\n$B*00\r\n".utf8))
    #expect(r.lines == ["$B*00"])
    #expect(r.counters.truncatedLines == 1)
    let high = Self.frame(Array("$GPGGA,1".utf8) + [0xC3, 0xA9] + Array(",2*00\n$C*00\n".utf8))
    #expect(high.lines == ["$C*00"])
    #expect(high.counters.truncatedLines == 1)
  }

  @Test func dollarOrBangInsideALineStartsANewOne() {
    // triton400: an unterminated GGA merged into the next GLL.
    let r = Self.frame("$GPGGA,030130.00,2638.1727$GPGLL,1*00\r\n!AIVDM,x*00\r\n")
    #expect(r.lines == ["$GPGLL,1*00", "!AIVDM,x*00"])
    #expect(r.counters.truncatedLines == 1)
  }

  @Test func commentLinesAreSkipped() {
    let r = Self.frame("# Date: 2009-12-09\r\n#\n$A*00\n# {\"class\":\"VERSION\"}\n$B*00 # not a comment\n#x")
    #expect(r.lines == ["$A*00", "$B*00 # not a comment"])
    #expect(r.counters.comments == 4)
    // '#' in the middle of junk is junk, not a comment.
    let j = Self.frame("ab#$C*00\n")
    #expect(j.lines == ["$C*00"])
    #expect(j.counters.comments == 0)
    #expect(j.counters.junkBytes == 3)
  }

  @Test func overlongLineIsDroppedAndTheNextFound() {
    let long = "$GPTXT," + String(repeating: "x", count: 400)
    for chunk in [0, 1, 7, 64] {
      let r = Self.frame(long + "\r\n$A*00\r\n" + long + "$B*00\n", chunkSize: chunk)
      #expect(r.lines == ["$A*00", "$B*00"], "chunk \(chunk)")
      #expect(r.counters.overlongLines == 2)
    }
    // Exactly at the bound is fine.
    let exact = "$" + String(repeating: "y", count: NMEAFramer.defaultMaxLineLength - 1)
    #expect(Self.frame(exact + "\n", chunkSize: 5).lines == [exact])
    #expect(Self.frame(exact + "y\n", chunkSize: 5).counters.overlongLines == 1)
  }

  @Test func aMegabyteLineWithoutNewlineStaysBounded() {
    var bytes = Array("$GPGGA,".utf8)
    bytes += [UInt8](repeating: 0x35, count: 1 << 20)
    for chunk in [0, 4096] {
      let r = Self.frame(bytes, chunkSize: chunk)
      #expect(r.lines.isEmpty)
      #expect(r.counters.overlongLines == 1)
      #expect(r.framer.bufferCapacity <= NMEAFramer.defaultMaxLineLength)
    }
  }

  @Test func finishDeliversTheLastLineAndCountsIt() {
    let r = Self.frame("$A*00\r\n$B,1,2")
    #expect(r.lines == ["$A*00", "$B,1,2"])
    #expect(r.counters.unterminatedLines == 1)
    #expect(Self.frame("$A*00\r\n").counters.unterminatedLines == 0)
  }

  @Test func jsonLinesOnlyWhenEnabled() {
    let text = Array("{\"class\":\"TPV\",\"device\":\"$x!\",\"note\":\"é\"}\r\n$A*00\n".utf8)
    // Off: the '{' line is junk (its "$x" starts a line that the non-ASCII byte spoils).
    #expect(Self.frame(text).lines == ["$A*00"])
    let json = Self.frame(text, framer: NMEAFramer(maxJSONLineLength: 100))
    #expect(json.lines == ["{\"class\":\"TPV\",\"device\":\"$x!\",\"note\":\"é\"}", "$A*00"])
    let tooLong = Self.frame(text, framer: NMEAFramer(maxJSONLineLength: 20))
    #expect(tooLong.lines == ["$A*00"])
    #expect(tooLong.counters.overlongLines == 1)
  }

  @Test func sameLinesAtEveryChunkSize() {
    let text = Array(
      "# c\r\n$GPRMC,1,A*00\r\nxx\u{0}$GPGGA,2$GPGSA,3*00\n\r$GPGSV,\u{1B}[H*00\r\n$GPZDA,4*00\r$GPVTG,5".utf8
    )
    let whole = Self.frame(text)
    for size in 1...64 {
      let r = Self.frame(text, chunkSize: size)
      #expect(r.lines == whole.lines, "chunk size \(size)")
      #expect(r.counters == whole.counters, "chunk size \(size)")
    }
  }

  @Test func randomBytesNeverGrowTheBuffer() {
    var generator = SplitMix64(seed: 7)
    var framer = NMEAFramer(maxJSONLineLength: 1000)
    var chunk = [UInt8](repeating: 0, count: 65536)
    var lines = 0
    for _ in 0..<16 {
      for i in chunk.indices { chunk[i] = UInt8(truncatingIfNeeded: generator.next()) }
      chunk.withUnsafeBytes { framer.feed($0) { line in lines += line.count > 0 ? 1 : 0 } }
    }
    #expect(framer.bufferCapacity <= 1000)
    #expect(framer.counters.junkBytes > 0)
  }
}

/// A small deterministic generator (SplitMix64, Steele et al. 2014) for reproducible noise.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
