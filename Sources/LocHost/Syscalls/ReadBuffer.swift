/// The one way locd reads a non-blocking stream when the loop says it is readable (control
/// clients, TCP sources and their peers, serial devices): read(2) into one buffer, hand each
/// chunk on, and stop when the descriptor is empty, at its end, failing, or when
/// `maxBytesPerWakeup` were read, so one busy peer cannot hold the loop. The buffer is
/// allocated once, with the reader; a reader can be shared by every stream of one owner,
/// as only one is read at a time (the loop has one thread). A short read ends the round:
/// the descriptor is most likely empty, and sd-event's epoll is level-triggered, so it calls
/// again if more came meanwhile.
public final class ReadBuffer {
  /// Why `readAvailable` returned.
  public enum Outcome: Equatable, Sendable {
    /// Nothing more to read now: read(2) said EAGAIN.
    case wouldBlock
    /// A read returned fewer bytes than asked: the descriptor is most likely empty.
    case shortRead
    /// `maxBytesPerWakeup` bytes were read; the rest waits for the next loop iteration.
    case budgetSpent
    /// The other side closed (read returned 0), after any bytes before it were handed on.
    case endOfFile
    /// read(2) failed (ECONNRESET, EIO from an unplugged device, ...).
    case failed(Errno)
    /// `body` returned false: its owner closed the stream meanwhile.
    case stopped
  }

  /// Most bytes one read(2) asks for: the buffer's size.
  public let chunkSize: Int
  /// Most bytes read per call of `readAvailable`.
  public let maxBytesPerWakeup: Int
  private let storage: UnsafeMutableRawBufferPointer
  private var reading = false

  /// A reader with a buffer of `chunkSize` bytes that reads at most `maxBytesPerWakeup`
  /// (at least one chunk) per call.
  public init(chunkSize: Int, maxBytesPerWakeup: Int) {
    precondition(chunkSize > 0 && maxBytesPerWakeup > 0)
    self.chunkSize = chunkSize
    self.maxBytesPerWakeup = maxBytesPerWakeup
    storage = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
  }

  deinit { storage.deallocate() }

  /// Reads what `stream` (non-blocking) has, up to `maxBytesPerWakeup` bytes, calling
  /// `body` with each chunk (at most `chunkSize` bytes, valid only during the call); `body`
  /// returns false to stop at once. EINTR is retried. The buffer is this reader's, so
  /// `body` must not read with the same reader (a bug: it traps).
  public func readAvailable(
    from stream: borrowing FileDescriptor, _ body: (UnsafeRawBufferPointer) -> Bool
  ) -> Outcome {
    precondition(!reading, "ReadBuffer used from inside its own body")
    reading = true
    defer { reading = false }
    var total = 0
    while total < maxBytesPerWakeup {
      let want = min(chunkSize, maxBytesPerWakeup - total)
      let result: FileDescriptor.ReadResult
      do {
        result = try stream.readNonBlocking(into: UnsafeMutableRawBufferPointer(rebasing: storage[0..<want]))
      } catch {
        return .failed(error)
      }
      switch result {
      case .wouldBlock:
        return .wouldBlock
      case .endOfFile:
        return .endOfFile
      case .bytes(let n):
        total += n
        guard body(UnsafeRawBufferPointer(rebasing: storage[0..<n])) else { return .stopped }
        if n < want { return .shortRead }
      }
    }
    return .budgetSpent
  }
}
