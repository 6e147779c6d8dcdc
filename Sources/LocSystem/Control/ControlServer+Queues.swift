import LocCore
import LocProtocol

/// Queued output, in one place. A client's queue holds what its socket did not take; each
/// queue is held to `maxQueuedBytes` and all of them together to `maxQueuedBytesTotal`
/// (`queues.total` is kept by ClientConnection as lines are queued and written). A client
/// whose queue goes over, or, when the total does, the clients with the biggest queues
/// until it is under again, are dropped: the queue is discarded so that `slow-consumer` is
/// the next and last thing they read (ControlServer.drop).
extension ControlServer: FlowControlHost {
  /// Bytes queued for all clients now.
  public var queuedBytes: Int { queues.total }

  /// `client`'s queue grew: the limits are checked.
  func queueGrew(_ client: ClientConnection) {
    // Over the limit: dropped, unless flow control (the replay clock) holds it and pauses
    // the replay until it reads.
    if client.queuedBytes > limits.maxQueuedBytes,
      flowControl?.hold(client.id, queued: client.queuedBytes, adding: 0) != true
    {
      overflowed(client, "queue over \(limits.maxQueuedBytes) bytes")
    }
    if !queues.sendingToMany { checkQueuedTotal() }
  }

  /// Sheds the biggest queues if all of them together are over their limit.
  func checkQueuedTotal() {
    if queues.total > limits.maxQueuedBytesTotal { shedBiggestQueues() }
  }

  /// All queues together are over their limit: the biggest go first, until the total is
  /// under it again.
  private func shedBiggestQueues() {
    let biggest = clients.ordered.filter { $0.queuedBytes > 0 }.sorted {
      ($0.queuedBytes, $1.id) > ($1.queuedBytes, $0.id)
    }
    let total = limits.maxQueuedBytesTotal
    for client in biggest {
      guard queues.total > total else { return }
      overflowed(client, "\(client.queuedBytes) bytes queued while all queues held over \(total)")
    }
  }

  /// Drops a client flow control gave up on (it read nothing for `ReplayStallTimeout=`).
  func dropSlow(_ id: SessionID, why: String) {
    if let client = clients[id] { overflowed(client, why) }
  }

  var maxQueuedBytes: Int { limits.maxQueuedBytes }

  var sessionsWithQueuedBytes: [SessionID] { clients.ordered.filter { $0.queuedBytes > 0 }.map(\.id) }

  func isConnected(_ id: SessionID) -> Bool { clients[id] != nil }

  private func overflowed(_ client: ClientConnection, _ why: String) {
    bump { $0.droppedSlow += 1 }
    drop(
      client, reason: "not reading (\(why))", level: .warning,
      lastWords: RequestError(.slowConsumer, "events were not read; \(why); closing"))
  }
}

/// The bytes queued for all clients, kept as lines are queued and written, and whether one
/// line is going to many sessions (the total is checked once, after). Held in place in the
/// server: no allocation, no indirection per message.
struct QueuedBytes {
  var total = 0
  var sendingToMany = false
}
