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

  unowned let server: ControlServer
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
  private var stallTimer: Timer?
  /// Called once every queue is empty, after `drain(then:)`.
  private var drained: (() -> Void)?

  init(server: ControlServer, stallLimit: Duration, congestion: @escaping (Bool) -> Void) {
    self.server = server
    self.stallLimit = stallLimit
    self.congestion = congestion
  }

  /// Whether `client`, over its limit with `adding` more bytes, is held (true: queue them)
  /// or must be dropped as before (false: it is over the ceiling).
  func hold(_ client: ClientConnection, adding: Int) -> Bool {
    guard client.queuedBytes + adding <= server.limits.maxQueuedBytes * FlowControl.ceilingFactor else {
      return false
    }
    if held.insert(client.id).inserted {
      watch(client.id)
      if held.count == 1 { congestion(true) }
    }
    return true
  }

  /// `client` wrote to its socket: `progressed` says whether any bytes went out.
  func flushed(_ client: ClientConnection, progressed: Bool) {
    guard lastProgress[client.id] != nil else { return }
    if client.queuedBytes == 0 {
      forget(client.id)
    } else if progressed {
      lastProgress[client.id] = server.loop.monotonicMicroseconds
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
    for client in server.clients.values where client.queuedBytes > 0 { watch(client.id) }
    checkDrained()
  }

  private func watch(_ id: SessionID) {
    if lastProgress[id] == nil { lastProgress[id] = server.loop.monotonicMicroseconds }
    rearm()
  }

  private func checkDrained() {
    guard let done = drained, lastProgress.isEmpty else { return }
    drained = nil
    server.loop.soon(done)
  }

  private var limitMicroseconds: UInt64 { UInt64(max(0, stallLimit.seconds) * 1_000_000) }

  /// Arms the stall timer for the earliest waited-for client, or disarms it.
  private func rearm() {
    guard let earliest = lastProgress.values.min() else {
      stallTimer?.disarm()
      return
    }
    if stallTimer == nil {
      stallTimer = try? server.loop.timer(clock: .monotonic, accuracyMicroseconds: 10_000) {
        [weak self] in self?.stalled()
      }
    }
    stallTimer?.arm(atMicroseconds: earliest + limitMicroseconds)
  }

  /// Drops every waited-for client that read nothing for the limit.
  private func stalled() {
    let now = server.loop.monotonicMicroseconds
    for (id, since) in lastProgress where now >= since + limitMicroseconds {
      guard let client = server.clients[id] else {
        forget(id)
        continue
      }
      server.dropSlow(
        client, why: "read nothing for \(TimeFormat.duration(stallLimit)) while it was waited for")
    }
    rearm()
  }
}
