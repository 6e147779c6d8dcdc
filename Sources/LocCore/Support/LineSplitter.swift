/// Cuts a byte stream, read in chunks, into lines at LF, for the filters that read millions of
/// them (`locctl tz -`): a line that lies within one chunk is handed out in place, found with
/// memchr(3); one split across chunks is assembled, up to `limit` bytes. A longer line, however
/// the input is cut, is reported once as `.overlong` and costs no memory. locbench's `tzparse`
/// times it with the coordinate scanner: the parsing half of `locctl tz -`.
public struct LineSplitter {
  /// One line: `p[start..<stop]` without its newline, valid only during the call; or a line
  /// longer than the limit.
  public enum Piece {
    case line(UnsafePointer<UInt8>, Int, Int)
    case overlong
  }

  /// The longest line handed out.
  public let limit: Int
  @usableFromInline var carry: [UInt8] = []
  @usableFromInline var overlong = false

  public init(limit: Int) {
    self.limit = limit
  }

  /// Calls `body` for every line that `chunk` completes, in order.
  @inlinable
  public mutating func feed(_ chunk: UnsafeRawBufferPointer, _ body: (Piece) -> Void) {
    guard let base = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
    let end = chunk.count
    var start = 0
    while start < end {
      guard let nl = firstByte(0x0A, from: base + start, count: end - start) else {
        // A partial line: kept for the next chunk, up to the limit.
        if carry.count + end - start > limit {
          overlong = true
          carry.removeAll(keepingCapacity: true)
        } else if !overlong {
          carry.append(contentsOf: UnsafeBufferPointer(start: base + start, count: end - start))
        }
        return
      }
      let stop = nl - base
      if overlong || !carry.isEmpty {
        if !overlong, carry.count + stop - start <= limit {
          carry.append(contentsOf: UnsafeBufferPointer(start: base + start, count: stop - start))
          carry.withUnsafeBufferPointer { body(.line($0.baseAddress!, 0, $0.count)) }
        } else {
          body(.overlong)
        }
        carry.removeAll(keepingCapacity: true)
        overlong = false
      } else if stop - start <= limit {
        body(.line(base, start, stop))
      } else {
        body(.overlong)
      }
      start = stop + 1
    }
  }

  /// Ends the input: a last line without a newline is handed out too.
  @inlinable
  public mutating func finish(_ body: (Piece) -> Void) {
    if overlong {
      body(.overlong)
    } else if !carry.isEmpty {
      carry.withUnsafeBufferPointer { body(.line($0.baseAddress!, 0, $0.count)) }
    }
    carry.removeAll(keepingCapacity: true)
    overlong = false
  }
}
