#if canImport(Glibc)
  import Glibc
#endif

/// An unnamed POSIX semaphore shared by the threads of this process (sem_init(3) with
/// pshared 0, value 0): one thread waits until another signals, as a detached thread hands
/// its result back.
public final class Semaphore: @unchecked Sendable {
  private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

  /// A semaphore at 0.
  public init() { sem_init(semaphore, 0, 0) }

  deinit {
    sem_destroy(semaphore)
    semaphore.deallocate()
  }

  /// Adds one, waking a waiter (sem_post(3)).
  public func signal() { sem_post(semaphore) }

  /// Waits until the value is above 0 and takes one (sem_wait(3)); EINTR is retried.
  public func wait() { while sem_wait(semaphore) != 0 {} }
}
