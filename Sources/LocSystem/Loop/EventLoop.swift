import CSystemd
import LocCore

/// The daemon's event loop: a thin owner of an sd-event loop (sd-event(3)). All I/O,
/// timers and signals of locd run on it, on one thread.
public final class EventLoop {
  let event: OpaquePointer

  /// A new loop (sd_event_new).
  public init() throws(Errno) {
    var e: OpaquePointer? = nil
    let r = sd_event_new(&e)
    _ = try Syscall.systemd("sd_event_new", r)
    guard let e else { throw Errno(call: "sd_event_new", code: Errno.noMemory) }
    event = e
  }

  deinit { sd_event_unref(event) }

  /// The loop's notion of now on the wall clock (sd_event_now, CLOCK_REALTIME): the time
  /// the current iteration woke up, so every event of one iteration sees the same instant.
  public var now: Instant {
    var usec: UInt64 = 0
    if sd_event_now(event, Clock.realtime.id, &usec) < 0 {
      return Instant(microsecondsSinceEpoch: Clocks.microseconds(.realtime))
    }
    return Instant(microsecondsSinceEpoch: Int64(usec))
  }

  /// CLOCK_MONOTONIC now, microseconds (sd_event_now).
  public var monotonicMicroseconds: UInt64 {
    var usec: UInt64 = 0
    if sd_event_now(event, Clock.monotonic.id, &usec) < 0 {
      return UInt64(Clocks.microseconds(.monotonic))
    }
    return usec
  }

  /// Watches `descriptor` for `events` (EPOLLIN, EPOLLOUT, ...) (sd_event_add_io). The watch
  /// owns the descriptor from now on, also when this fails (it is closed then).
  public func watch(
    _ descriptor: consuming FileDescriptor, events: UInt32, _ handler: @escaping (UInt32) -> Void
  ) throws(Errno) -> IOWatch {
    let watch = IOWatch(descriptor: descriptor, handler: handler)
    var source: OpaquePointer? = nil
    let r = sd_event_add_io(
      event, &source, watch.descriptor.rawValue, events,
      { _, _, revents, userdata in
        // Keep the watch alive while its handler runs: the handler may cancel and drop it.
        let watch = Unmanaged<IOWatch>.fromOpaque(userdata!).takeUnretainedValue()
        withExtendedLifetime(watch) { watch.handler(revents) }
        return 0
      }, Unmanaged.passUnretained(watch).toOpaque())
    _ = try Syscall.systemd("sd_event_add_io", r)
    watch.source = source
    return watch
  }

  /// A timer on `clock`, initially off; arm it with `Timer.arm(atMicroseconds:)` (sd_event_add_time).
  /// `accuracy` lets the kernel coalesce wakeups (sd-event's default is 250 ms; timers that
  /// must be punctual use 1 ms).
  public func timer(clock: Clock, accuracyMicroseconds: UInt64 = 1000, _ handler: @escaping () -> Void)
    throws(Errno)
    -> Timer
  {
    let timer = Timer(handler: handler)
    var source: OpaquePointer? = nil
    let r = sd_event_add_time(
      event, &source, clock.id, UInt64.max, accuracyMicroseconds,
      { _, _, userdata in
        let timer = Unmanaged<Timer>.fromOpaque(userdata!).takeUnretainedValue()
        withExtendedLifetime(timer) { timer.fire() }
        return 0
      }, Unmanaged.passUnretained(timer).toOpaque())
    _ = try Syscall.systemd("sd_event_add_time", r)
    timer.source = source
    sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF))
    return timer
  }

  /// Handles signal `signo` on the loop (sd_event_add_signal); the signal is blocked for
  /// the process so it is only delivered here. Signals are `important` unless told
  /// otherwise: sd-event dispatches one source per iteration, the most urgent first, so a
  /// SIGTERM is handled at the next iteration however many clients have input waiting.
  public func onSignal(_ signo: Int32, priority: Priority = .important, _ handler: @escaping () -> Void)
    throws(Errno)
  {
    Signals.routeToDescriptor(signo)
    let box = Callback(handler)
    var source: OpaquePointer? = nil
    let r = sd_event_add_signal(
      event, &source, signo,
      { _, _, userdata in
        Unmanaged<Callback>.fromOpaque(userdata!).takeUnretainedValue().body()
        return 0
      }, Unmanaged.passRetained(box).toOpaque())
    _ = try Syscall.systemd("sd_event_add_signal", r)
    _ = try Syscall.systemd(
      "sd_event_source_set_priority", sd_event_source_set_priority(source, priority.value))
  }

  /// Runs `body` once, on the next iteration (sd_event_add_defer, one shot); at `.idle`,
  /// only once nothing of higher priority is ready (sd_event_source_set_priority).
  public func soon(priority: Priority = .normal, _ body: @escaping () -> Void) {
    let box = Callback(body)
    var source: OpaquePointer? = nil
    let r = sd_event_add_defer(
      event, &source,
      { s, userdata in
        let box = Unmanaged<Callback>.fromOpaque(userdata!).takeRetainedValue()
        sd_event_source_disable_unref(s)
        box.body()
        return 0
      }, Unmanaged.passRetained(box).toOpaque())
    if r < 0 {
      Unmanaged.passUnretained(box).release()
    } else if priority != .normal {
      sd_event_source_set_priority(source, priority.value)
    }
  }

  /// Runs `body` after a loop iteration dispatched something, before the loop waits again
  /// (sd_event_add_post, for the life of the loop). sd-event dispatches one source an
  /// iteration, the most urgent first and, within a priority, the one ready longest: at
  /// `.idle`, `body` runs once nothing of higher priority is ready, so the work of every
  /// client served meanwhile (and each client's requests held over to later turns) comes to
  /// it together; at `.normal`, after the sources that were ready before it became due.
  public func afterEachIteration(priority: Priority = .normal, _ body: @escaping () -> Void) throws(Errno) {
    let box = Callback(body)
    var source: OpaquePointer? = nil
    let r = sd_event_add_post(
      event, &source,
      { _, userdata in
        Unmanaged<Callback>.fromOpaque(userdata!).takeUnretainedValue().body()
        return 0
      }, Unmanaged.passRetained(box).toOpaque())
    if r < 0 { Unmanaged.passUnretained(box).release() }
    _ = try Syscall.systemd("sd_event_add_post", r)
    if priority != .normal {
      _ = try Syscall.systemd(
        "sd_event_source_set_priority", sd_event_source_set_priority(source, priority.value))
    }
  }

  /// Sends WATCHDOG=1 automatically at half of WatchdogSec when the service manager asks
  /// for it (sd_event_set_watchdog; reads WATCHDOG_USEC/WATCHDOG_PID).
  @discardableResult public func enableWatchdog() -> Bool { sd_event_set_watchdog(event, 1) > 0 }

  /// Runs until `exit(code:)`; returns the code (sd_event_loop).
  public func run() -> Int32 { sd_event_loop(event) }

  /// Runs one iteration, waiting at most `timeoutMicroseconds` for something to happen
  /// (sd_event_run); for tests that drive the loop step by step.
  @discardableResult public func runOnce(timeoutMicroseconds: UInt64) -> Bool {
    sd_event_run(event, timeoutMicroseconds) >= 0
  }

  /// Makes `run()` return `code` after the current iteration (sd_event_exit).
  public func exit(code: Int32) { sd_event_exit(event, code) }

  /// The order in which sources that are ready at once are dispatched
  /// (sd_event_source_set_priority(3)); within one priority, the one ready longest goes first.
  public enum Priority: Sendable {
    /// Before everything else (SD_EVENT_PRIORITY_IMPORTANT): signals.
    case important
    /// Clients, sources, timers (SD_EVENT_PRIORITY_NORMAL).
    case normal
    /// After everything else that is ready (SD_EVENT_PRIORITY_IDLE): work that may wait,
    /// such as the next batch of a `speed=max` replay while clients have requests to serve.
    case idle
    var value: Int64 {
      switch self {
      case .important: return Int64(SD_EVENT_PRIORITY_IMPORTANT)
      case .normal: return Int64(SD_EVENT_PRIORITY_NORMAL)
      case .idle: return Int64(SD_EVENT_PRIORITY_IDLE)
      }
    }
  }

  /// Clocks timers can run on.
  public enum Clock {
    /// Wall-clock time; deadlines are absolute and move with clock steps.
    case realtime
    /// Time since boot, not counting suspend.
    case monotonic
    /// Time since boot, counting suspend.
    case boottime
    var id: Int32 {
      switch self {
      case .realtime: return Clocks.Kind.realtime.id
      case .monotonic: return Clocks.Kind.monotonic.id
      case .boottime: return Clocks.Kind.boottime.id
      }
    }
  }
}

/// A closure box kept alive by the C side.
final class Callback {
  let body: () -> Void
  init(_ body: @escaping () -> Void) { self.body = body }
}

/// A file descriptor the loop watches, owned by the watch: it is closed when the watch is
/// released, after it left the loop, so the loop never watches a closed (or reused) number.
public final class IOWatch {
  /// The descriptor watched.
  public let descriptor: FileDescriptor
  let handler: (UInt32) -> Void
  var source: OpaquePointer?

  init(descriptor: consuming FileDescriptor, handler: @escaping (UInt32) -> Void) {
    self.descriptor = descriptor
    self.handler = handler
  }

  /// Changes the events watched (sd_event_source_set_io_events).
  public func setEvents(_ events: UInt32) {
    if let source { sd_event_source_set_io_events(source, events) }
  }

  /// Turns the watch off (the handler is not called, the descriptor stays open) or on again
  /// (sd_event_source_set_enabled).
  public func setEnabled(_ on: Bool) {
    if let source { sd_event_source_set_enabled(source, on ? Int32(SD_EVENT_ON) : Int32(SD_EVENT_OFF)) }
  }

  /// Stops watching; the handler is not called again (sd_event_source_disable_unref). The
  /// descriptor stays open until the watch is released.
  public func cancel() {
    if let source { sd_event_source_disable_unref(source) }
    source = nil
  }

  deinit { cancel() }
}

/// A one-shot timer that can be re-armed.
public final class Timer {
  let handler: () -> Void
  var source: OpaquePointer?
  /// The deadline armed, if any.
  public private(set) var deadline: UInt64?

  init(handler: @escaping () -> Void) { self.handler = handler }

  func fire() {
    deadline = nil
    handler()
  }

  /// Arms at an absolute time on the timer's clock, in microseconds (sd_event_source_set_time).
  public func arm(atMicroseconds usec: UInt64) {
    guard let source else { return }
    deadline = usec
    sd_event_source_set_time(source, usec)
    sd_event_source_set_enabled(source, Int32(SD_EVENT_ONESHOT))
  }

  /// Disarms.
  public func disarm() {
    deadline = nil
    if let source { sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF)) }
  }

  /// Frees the timer; it never fires again.
  public func cancel() {
    deadline = nil
    if let source { sd_event_source_disable_unref(source) }
    source = nil
  }

  deinit { cancel() }
}

/// epoll event bits (epoll_ctl(2); values from the Linux UAPI <sys/epoll.h>, the same on
/// every architecture). Glibc's Swift module does not export <sys/epoll.h>.
public enum Epoll {
  /// EPOLLIN: readable.
  public static let input: UInt32 = 0x001
  /// EPOLLOUT: writable.
  public static let output: UInt32 = 0x004
  /// EPOLLERR: error condition.
  public static let error: UInt32 = 0x008
  /// EPOLLHUP: hang up.
  public static let hangup: UInt32 = 0x010
}
