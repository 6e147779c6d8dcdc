/// Which bytes of a live stream get decoded while acquisition pauses and resumes it, by
/// whole lines: a pause lets the line in progress finish, a resume waits for the next line
/// start, and every byte not decoded is counted, with the line ends among them (about one a
/// sentence). Bytes are only looked at, never kept.
struct LineGate {
  /// Whether input is ignored (acquisition idle).
  private(set) var paused = false
  /// Bytes ignored while paused (and, after resuming, up to the next line end).
  private(set) var ignoredBytes = 0
  /// Line ends among the ignored bytes.
  private(set) var ignoredLines = 0
  /// Whether the last byte seen, decoded or ignored, ended a line.
  private var atLineStart = true
  /// Paused in the middle of a line: the bytes up to its end are still decoded.
  private(set) var finishingLine = false
  /// Resumed in the middle of an ignored line: bytes up to its end are ignored too.
  private var skippingToLineEnd = false

  /// A stream begins: it starts at a line start.
  mutating func begin() {
    atLineStart = true
    finishingLine = false
    skippingToLineEnd = false
  }

  /// Ignores input from the end of the line in progress; false if already paused.
  mutating func pause() -> Bool {
    guard !paused else { return false }
    paused = true
    finishingLine = !atLineStart
    skippingToLineEnd = false
    return true
  }

  /// Decodes input again from the next line start; false if not paused.
  mutating func resume() -> Bool {
    guard paused else { return false }
    paused = false
    finishingLine = false
    skippingToLineEnd = !atLineStart
    return true
  }

  /// Passes `bytes` through the gate: counts what is ignored and returns the part to decode
  /// (at most one: finishing a line happens only while paused, skipping only while not).
  mutating func pass(_ bytes: UnsafeRawBufferPointer) -> Range<Int>? {
    guard !bytes.isEmpty else { return nil }
    var start = 0
    var decoded: Range<Int>? = nil
    if finishingLine || skippingToLineEnd {
      let end = bytes.firstIndex(of: 0x0A).map { $0 + 1 } ?? bytes.count
      if finishingLine {
        decoded = 0..<end
        atLineStart = bytes[end - 1] == 0x0A
      } else {
        ignore(UnsafeRawBufferPointer(rebasing: bytes[0..<end]))
      }
      if bytes[end - 1] == 0x0A {
        finishingLine = false
        skippingToLineEnd = false
      }
      start = end
    }
    guard start < bytes.count else { return decoded }
    if paused {
      ignore(UnsafeRawBufferPointer(rebasing: bytes[start...]))
      return decoded
    }
    atLineStart = bytes[bytes.count - 1] == 0x0A
    return start..<bytes.count
  }

  private mutating func ignore(_ bytes: UnsafeRawBufferPointer) {
    ignoredBytes += bytes.count
    for b in bytes where b == 0x0A { ignoredLines += 1 }
    atLineStart = bytes.last == 0x0A
  }
}
