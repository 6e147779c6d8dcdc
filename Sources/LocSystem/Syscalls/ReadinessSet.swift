import CLocShim

#if canImport(Glibc)
  import Glibc
#endif

/// Descriptors waited on together for input (epoll(7), level-triggered), each known by a
/// token: for a program that reads many sockets without the event loop (locbench's
/// subscribers), where poll(2) would scan every descriptor at every wait.
public struct ReadinessSet: ~Copyable {
  private let epoll: FileDescriptor
  /// Room for the ready descriptors one wait returns.
  private var events: [epoll_event]

  /// An empty set (epoll_create1(2), close-on-exec) returning up to `batch` ready
  /// descriptors a wait.
  public init(batch: Int = 256) throws(Errno) {
    epoll = FileDescriptor(
      owning: try Syscall.retrying("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) })
    events = [epoll_event](repeating: epoll_event(), count: max(1, batch))
  }

  /// Watches descriptor `number` (owned by the caller, open while it is in the set) for
  /// input, reported as `token` (epoll_ctl(2) EPOLL_CTL_ADD, EPOLLIN).
  public func add(_ number: Int32, token: Int) throws(Errno) {
    var event = epoll_event()
    event.events = EPOLLIN.rawValue
    event.data.u64 = UInt64(token)
    _ = try Syscall.retrying("epoll_ctl") { epoll_ctl(epoll.rawValue, EPOLL_CTL_ADD, number, &event) }
  }

  /// Waits at most `milliseconds` (-1: without a limit) until some descriptor is readable,
  /// hung up or in error (epoll_wait(2)), and calls `ready` with each one's token; none
  /// when the time ran out. EINTR is thrown, not retried, as `waitReadable` does.
  public mutating func wait(milliseconds: Int32, _ ready: (Int) -> Void) throws(Errno) {
    let capacity = Int32(events.count)
    let epollNumber = epoll.rawValue
    let count = try events.withUnsafeMutableBufferPointer { buffer throws(Errno) in
      try Syscall.once("epoll_wait") { epoll_wait(epollNumber, buffer.baseAddress, capacity, milliseconds) }
    }
    for i in 0..<Int(count) { ready(Int(events[i].data.u64)) }
  }
}
