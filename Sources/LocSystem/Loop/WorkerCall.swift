import LocHost

/// One blocking call at a time on a short-lived detached thread, its answer sent back as
/// bytes through a socket pair the loop watches, so the loop never waits on it (decision
/// 0006): name lookups (`HostResolver`) and geolocation lookups (`Geolocator`). The worker
/// shares nothing mutable with the loop: `work` uses only constants and returns the bytes,
/// and when the thread lets go of its end of the pair that end closes, which the loop reads
/// as "the answer is complete". A new call (or `cancel`) abandons the one in progress: its
/// thread finishes on its own and its send fails (EPIPE, MSG_NOSIGNAL: no signal).
final class WorkerCall {
  /// How a call ended, as the loop read it.
  enum Ending {
    /// Everything the worker sent, its end closed.
    case answer([UInt8])
    /// Reading the loop's end failed.
    case readFailed(Errno)
    /// The worker sent more than `maxAnswerBytes`.
    case tooLong
  }

  /// Why a call did not start (nothing will be called for it).
  enum StartFailure: Error {
    case noSocketPair(Errno)
    case noThread
  }

  /// The worker's end of the pair: written once, closed when the worker lets go of it.
  private final class Reply: Sendable {
    let descriptor: FileDescriptor
    init(_ descriptor: consuming FileDescriptor) { self.descriptor = descriptor }

    func send(_ bytes: [UInt8]) {
      var offset = 0
      while offset < bytes.count, let sent = try? descriptor.send(bytes, from: offset) { offset += sent }
    }
  }

  private let loop: EventLoop
  private let maxAnswerBytes: Int
  private let chunkSize: Int
  private var generation = 0
  /// The loop's end of the pair of the call in progress, owned by its watch.
  private var watch: IOWatch?
  /// The answer read so far.
  private var answer: [UInt8] = []
  /// Made at the first call.
  private lazy var reader = ReadBuffer(chunkSize: chunkSize, maxBytesPerWakeup: maxAnswerBytes + 16)

  /// Calls on `loop` whose answers are at most `maxAnswerBytes`, read `chunkSize` at a time.
  init(loop: EventLoop, maxAnswerBytes: Int, chunkSize: Int) {
    self.loop = loop
    self.maxAnswerBytes = maxAnswerBytes
    self.chunkSize = chunkSize
  }

  deinit { cancel() }

  /// Runs `work` on a new thread; `done` gets how it ended, later on the loop, once, unless
  /// cancelled. With no thread to be had, `work` runs here when `runsHereWithoutThread` (its
  /// answer must then fit the socket's buffer), else the call fails with `.noThread`.
  func start(
    runsHereWithoutThread: Bool, _ work: @escaping @Sendable () -> [UInt8],
    _ done: @escaping (Ending) -> Void
  ) throws(StartFailure) {
    cancel()
    let current = generation
    let reply: Reply
    do throws(Errno) {
      // The worker's end blocks (it has nothing else to do); the loop's does not.
      let pair = try DescriptorPair.socketPair()
      try pair.first.setNonBlocking()
      reply = Reply(pair.second)
      watch = try loop.watch(pair.first, events: Epoll.input) { [weak self] _ in
        guard let self, self.generation == current, let ending = self.readAnswer() else { return }
        self.cancel()
        done(ending)
      }
    } catch {
      throw .noSocketPair(error)
    }
    if DetachedThread.start({ reply.send(work()) }) { return }
    guard runsHereWithoutThread else {
      cancel()
      throw .noThread
    }
    // `reply` is released, closing the worker's end, on return.
    reply.send(work())
  }

  /// Abandons the call in progress, if any: its `done` is never called.
  func cancel() {
    generation += 1
    watch?.cancel()
    watch = nil
    answer = []
  }

  /// How the call ended once the worker's end closed, nil until then.
  private func readAnswer() -> Ending? {
    guard let watch else { return nil }
    let outcome = reader.readAvailable(from: watch.descriptor) { chunk in
      answer += chunk
      return answer.count <= maxAnswerBytes
    }
    switch outcome {
    case .endOfFile: return .answer(answer)
    case .failed(let error): return .readFailed(error)
    case .stopped: return .tooLong
    case .wouldBlock, .shortRead, .budgetSpent: return nil
    }
  }
}
