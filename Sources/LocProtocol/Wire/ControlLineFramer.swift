/// Cuts the bytes a client sends into request lines (docs/PROTOCOL.md: one JSON object a
/// line, LF-terminated; a CR before the LF is dropped), bounded: a line longer than the
/// limit costs no memory beyond it, is reported once as `.overlong` and skipped to its newline;
/// empty lines are skipped. Pure: the connection reads its socket and hands the bytes here
/// in whatever chunks they came, one frame at a time, so it can stop between two requests
/// (a turn's budget spent, the client dropped) and keep the rest for later.
public struct ControlLineFramer {
  /// One thing the bytes held.
  public enum Frame: Equatable, Sendable {
    /// A request line, without its newline and the CR before it; never empty.
    case line([UInt8])
    /// A line went over the limit. `ended`: its newline was in the bytes given (a request,
    /// for the budget); else the rest of the line is skipped as it comes.
    case overlong(ended: Bool)
  }

  /// Bytes of an unfinished line.
  private var pending: [UInt8] = []
  /// Set while skipping the rest of an overlong line.
  private var discarding = false

  public init() {}

  /// The next frame of `bytes[start...]`, lines up to `limit` bytes (`MaxRequestBytes=`,
  /// which a reload may change between two calls), with `start` moved past the bytes it
  /// used; nil once they are all used, an unfinished line kept for the next call.
  public mutating func next(_ bytes: UnsafeRawBufferPointer, from start: inout Int, limit: Int) -> Frame? {
    while start < bytes.count {
      guard let newline = bytes[start...].firstIndex(of: 0x0A) else {
        defer { start = bytes.count }
        if discarding { return nil }
        pending.append(contentsOf: bytes[start...])
        guard pending.count > limit else { return nil }
        pending.removeAll()
        discarding = true
        return .overlong(ended: false)
      }
      defer { start = newline + 1 }
      if discarding {
        discarding = false
        continue
      }
      pending.append(contentsOf: bytes[start..<newline])
      if pending.count > limit {
        pending.removeAll()
        return .overlong(ended: true)
      }
      var line = pending
      pending.removeAll(keepingCapacity: pending.count <= 4096)
      if line.last == 0x0D { line.removeLast() }
      if !line.isEmpty { return .line(line) }
    }
    return nil
  }

  /// Every frame of `bytes`, in order (for tests and tools; the connection calls `next`).
  public mutating func frames(_ bytes: [UInt8], limit: Int) -> [Frame] {
    var frames: [Frame] = []
    var start = 0
    bytes.withUnsafeBytes { raw in
      while let frame = next(raw, from: &start, limit: limit) { frames.append(frame) }
    }
    return frames
  }

  /// The input ended: the unfinished line, if any (not one being skipped), as a last line
  /// without its newline, and the framer is empty again.
  public mutating func finish() -> [UInt8]? {
    defer {
      pending = []
      discarding = false
    }
    guard !discarding else { return nil }
    var line = pending
    if line.last == 0x0D { line.removeLast() }
    return line.isEmpty ? nil : line
  }

  /// Whether the unfinished line (not one being skipped) ends with `byte`, spaces and CRs
  /// after it aside: a gpsd command ended by `;` is whole without its newline.
  public func pendingEnds(with byte: UInt8) -> Bool {
    !discarding && pending.last(where: { $0 != 0x20 && $0 != 0x0D }) == byte
  }

  /// Forgets the unfinished line (a connection that reads no more).
  public mutating func dropPending() {
    pending = []
  }
}
