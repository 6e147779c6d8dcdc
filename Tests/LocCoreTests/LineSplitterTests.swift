import LocCore
import Testing

/// `LineSplitter` (`locctl tz -`'s input): the same lines, and the same overlong ones, for
/// every way the input is cut into chunks.
@Suite struct LineSplitterTests {
  /// What a splitter hands out for `input` fed in chunks of the given sizes (cycled).
  static func pieces(_ input: [UInt8], limit: Int, chunks: [Int]) -> [String] {
    var splitter = LineSplitter(limit: limit)
    var out: [String] = []
    func take(_ piece: LineSplitter.Piece) {
      switch piece {
      case .line(let p, let start, let stop):
        out.append(
          String(decoding: UnsafeBufferPointer(start: p + start, count: stop - start), as: UTF8.self))
      case .overlong: out.append("<overlong>")
      }
    }
    input.withUnsafeBytes { all in
      var offset = 0
      var k = 0
      while offset < all.count {
        let end = min(all.count, offset + chunks[k % chunks.count])
        splitter.feed(UnsafeRawBufferPointer(rebasing: all[offset..<end])) { take($0) }
        offset = end
        k += 1
      }
    }
    splitter.finish { take($0) }
    return out
  }

  /// The lines as a person reads them: cut at LF; the last one counts without its LF; a line
  /// over the limit is overlong.
  static func expected(_ text: String, limit: Int) -> [String] {
    // Cut the bytes, not the characters: "\r\n" is one Character.
    var lines = Array(text.utf8).split(separator: 0x0A, omittingEmptySubsequences: false)
    if lines.last?.isEmpty == true { lines.removeLast() }
    return lines.map { $0.count > limit ? "<overlong>" : String(decoding: $0, as: UTF8.self) }
  }

  @Test func everyChunkingGivesTheSameLines() {
    let long = String(repeating: "7", count: 40)
    let text = "51.438,4.931\n\n" + long + "\n 40.7 -74.0 \r\n" + long + long + "\nx\n" + long + "\nlast"
    let input = Array(text.utf8)
    let want = Self.expected(text, limit: 40)
    #expect(want.contains("<overlong>") && want.contains(long) && want.last == "last")
    for size in 1...input.count {
      #expect(Self.pieces(input, limit: 40, chunks: [size]) == want, "chunks of \(size)")
    }
    #expect(Self.pieces(input, limit: 40, chunks: [3, 17, 1, 40, 2]) == want)
  }

  @Test func aFinalLineOverTheLimitIsOverlongOnce() {
    let input = Array(("1,2\n" + String(repeating: "9", count: 100)).utf8)
    #expect(Self.pieces(input, limit: 10, chunks: [7]) == ["1,2", "<overlong>"])
    #expect(Self.pieces(Array("1,2\n".utf8), limit: 10, chunks: [2]) == ["1,2"])
  }
}
