import LocCore

/// Flow control for a producer that can wait: the replay of `locd --clock replay`, whose
/// simulated time stands still when it is paused. A client whose queue goes over its limit
/// (`MaxQueuedBytesPerClient`) is *held* instead of dropped: the owner is told to pause
/// (`congestion(true)`), and to go on (`congestion(false)`) once every held client's queue
/// has been written out. A held client that reads nothing for `stallLimit` is dropped as a
/// slow consumer after all, and so is one whose queue reaches `ceilingFactor` times its
/// limit (what was produced before the pause took effect must still fit), so a client that
/// never reads cannot pin the daemon or its memory.
///
/// `drain(then:)` waits, under the same stall rule, until every client's queue is written
/// out: `locd --exit-at-end` exits once clients have what was queued for them.
public final class FlowControl {
  /// How far over its limit a held client's queue may grow.
  public static let ceilingFactor = 4

  unowned let host: any FlowControlHost
  let scheduler: any Scheduler
  /// How long a waited-for client may read nothing before it is dropped.
  public var stallLimit: Duration
  /// Told `true` when the first client is held, `false` when none is held any more.
  let congestion: (Bool) -> Void
  /// Clients over their limit, waited for.
  private(set) var held: Set<SessionID> = []
  /// Waited-for clients (held, or with bytes queued while draining) and when each last
  /// made progress (monotonic microseconds).
  private var lastProgress: [SessionID: UInt64] = [:]
  /// Wakes up when the earliest waited-for client would stall.
  private var stallTimer: (any LoopTimer)?
  /// Called once every queue is empty, after `drain(then:)`.
  private var drained: (() -> Void)?

  init(
    host: any FlowControlHost, scheduler: any Scheduler, stallLimit: Duration,
    congestion: @escaping (Bool) -> Void
  ) {
    self.host = host
    self.scheduler = scheduler
    self.stallLimit = stallLimit
    self.congestion = congestion
  }

  /// Whether client `id` with `queued` bytes, over its limit with `adding` more, is held
  /// (true: queue them) or must be dropped as before (false: it is over the ceiling).
  func hold(_ id: SessionID, queued: Int, adding: Int) -> Bool {
    guard queued + adding <= host.maxQueuedBytes * FlowControl.ceilingFactor else {
      return false
    }
    if held.insert(id).inserted {
      watch(id)
      if held.count == 1 { congestion(true) }
    }
    return true
  }

  /// Client `id` wrote to its socket and has `queued` bytes left: `progressed` says
  /// whether any bytes went out.
  func flushed(_ id: SessionID, queued: Int, progressed: Bool) {
    guard lastProgress[id] != nil else { return }
    if queued == 0 {
      forget(id)
    } else if progressed {
      lastProgress[id] = scheduler.monotonicMicroseconds
    }
  }

  /// `id` is gone (dropped or closed): stop waiting for it.
  func forget(_ id: SessionID) {
    lastProgress[id] = nil
    if held.remove(id) != nil, held.isEmpty { congestion(false) }
    rearm()
    checkDrained()
  }

  /// Calls `done` once every client's queue is written out, dropping clients that read
  /// nothing for `stallLimit` meanwhile.
  public func drain(then done: @escaping () -> Void) {
    drained = done
    for id in host.sessionsWithQueuedBytes { watch(id) }
    checkDrained()
  }

  private func watch(_ id: SessionID) {
    if lastProgress[id] == nil { lastProgress[id] = scheduler.monotonicMicroseconds }
    rearm()
  }

  private func checkDrained() {
    guard let done = drained, lastProgress.isEmpty else { return }
    drained = nil
    scheduler.soon(done)
  }

  private var limitMicroseconds: UInt64 { UInt64(max(0, stallLimit.seconds) * 1_000_000) }

  /// Arms the stall timer for the earliest waited-for client, or disarms it.
  private func rearm() {
    guard let earliest = lastProgress.values.min() else {
      stallTimer?.disarm()
      return
    }
    if stallTimer == nil {
      stallTimer = try? scheduler.makeTimer(clock: .monotonic, accuracyMicroseconds: 10_000) {
        [weak self] in self?.stalled()
      }
    }
    stallTimer?.arm(atMicroseconds: earliest + limitMicroseconds)
  }

  /// Drops every waited-for client that read nothing for the limit.
  private func stalled() {
    let now = scheduler.monotonicMicroseconds
    for (id, since) in lastProgress where now >= since + limitMicroseconds {
      guard host.isConnected(id) else {
        forget(id)
        continue
      }
      host.dropSlow(id, why: "read nothing for \(TimeFormat.duration(stallLimit)) while it was waited for")
    }
    rearm()
  }
}

/// What flow control needs of the server whose clients it waits for: their queues' limit,
/// who has bytes queued, and the drop of a client it gave up on. `ControlServer` is the
/// real one; tests hold clients of their own on a `ManualLoop`.
protocol FlowControlHost: AnyObject {
  /// A client's queue limit (`MaxQueuedBytesPerClient=`).
  var maxQueuedBytes: Int { get }
  /// The clients with bytes queued.
  var sessionsWithQueuedBytes: [SessionID] { get }
  /// Whether `id` is still connected.
  func isConnected(_ id: SessionID) -> Bool
  /// Drops `id` as a slow consumer, saying `why`; the host calls `forget(id)` as it closes.
  func dropSlow(_ id: SessionID, why: String)
}
