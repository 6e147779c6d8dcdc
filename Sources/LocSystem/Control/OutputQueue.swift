/// The lines a connection has yet to write, oldest first, and how much of the oldest went
/// already. Pure: the connection writes `first` to its socket and says how much went
/// (`wrote`); the queue counts the bytes waiting. Lines are kept as the arrays they came
/// in, shared with every other queue the same event waits in, never copied.
struct OutputQueue {
  /// The lines, oldest from `head`; entries before `head` are written and emptied.
  private var lines: [[UInt8]] = []
  private var head = 0
  /// Bytes of `lines[head]` written.
  private var headOffset = 0
  /// Bytes waiting to be written.
  private(set) var byteCount = 0

  /// Whether nothing waits.
  var isEmpty: Bool { head == lines.count }

  /// Queues `bytes`, a whole line with its newline, of which the first `offset` bytes went
  /// out already (a direct write the socket took part of; only on an empty queue, since
  /// lines go out in order). Returns the bytes now waiting from it.
  mutating func append(_ bytes: [UInt8], from offset: Int = 0) -> Int {
    if isEmpty {
      lines.removeAll(keepingCapacity: true)
      head = 0
      headOffset = offset
    }
    lines.append(bytes)
    byteCount += bytes.count - offset
    return bytes.count - offset
  }

  /// The oldest line and how many of its bytes went; nil when nothing waits.
  var first: (line: [UInt8], offset: Int)? {
    isEmpty ? nil : (lines[head], headOffset)
  }

  /// `count` more bytes of the oldest line went out (at most what is left of it).
  mutating func wrote(_ count: Int) {
    headOffset += count
    byteCount -= count
    if headOffset == lines[head].count {
      lines[head] = []
      head += 1
      headOffset = 0
    }
  }

  /// Gives back the room of written lines once they are most of the array (after a round
  /// of writes, not during one).
  mutating func compact() {
    if head > 1024, head * 2 > lines.count {
      lines.removeFirst(head)
      head = 0
    }
  }

  /// What is left of the oldest line if part of it went out (it must be finished before
  /// anything else is written, or the peer would read garbage); empty otherwise.
  var unfinished: [UInt8] {
    !isEmpty && headOffset > 0 ? Array(lines[head][headOffset...]) : []
  }

  /// Forgets everything queued.
  mutating func removeAll() {
    lines = []
    head = 0
    headOffset = 0
    byteCount = 0
  }
}
