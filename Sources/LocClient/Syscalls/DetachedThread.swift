#if canImport(Glibc)
  import Glibc
#endif

/// A detached POSIX thread (pthread_create(3), PTHREAD_CREATE_DETACHED) running one closure to
/// its end: for work that must block outside the event loop (a name lookup, the client
/// library's reading of its socket). Nobody joins it; it ends when the closure returns.
public enum DetachedThread {
  /// The closure, kept alive across pthread_create.
  private final class Body: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
  }

  /// Starts `body` on a new detached thread; false if none could be created (EAGAIN:
  /// the user's thread limit).
  public static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    let retained = Unmanaged.passRetained(Body(body)).toOpaque()
    var thread = pthread_t()
    let r = pthread_create(
      &thread, &attributes,
      { argument in
        Unmanaged<Body>.fromOpaque(argument!).takeRetainedValue().run()
        return nil
      }, retained)
    if r != 0 {
      Unmanaged<Body>.fromOpaque(retained).release()
      return false
    }
    return true
  }
}
