import LocCore
import LocProtocol

/// One client of the gpsd face: lines in (bounded by `GpsdCommand.maxBytes`, a turn's
/// budget of bytes a wakeup), lines out through an `OutputQueue` with the per-client limit;
/// a client whose queue passes it is dropped by the server (`slow-consumer`, counted).
final class GpsdConnection {
  unowned let server: GpsdServer
  let id: SessionID
  let peer: Peer
  private var watch: IOWatch?
  /// Cuts the client's bytes into command lines, skipping overlong ones (the native
  /// socket's framer: a line of `GpsdCommand.maxBytes` or more is overlong).
  private var framer = ControlLineFramer()
  private var queue = OutputQueue()

  /// Bytes waiting to be written.
  var queuedBytes: Int { queue.byteCount }

  init(server: GpsdServer, socket: consuming FileDescriptor, id: SessionID, peer: Peer) throws(Errno) {
    self.server = server
    self.id = id
    self.peer = peer
    watch = try server.loop.watch(socket, events: Epoll.input) { [weak self] revents in self?.ready(revents) }
  }

  /// Whether the connection is still open.
  var isOpen: Bool { watch != nil }

  private func ready(_ revents: UInt32) {
    if revents & Epoll.output != 0 { flush() }
    guard watch != nil, queuedBytes <= GpsdServer.readPauseBytes else { return }
    if revents & (Epoll.input | Epoll.hangup | Epoll.error) != 0 { readAvailable() }
  }

  private func readAvailable() {
    guard let watch else { return }
    var lines: [Substring] = []
    var overlong = 0
    let outcome = server.reader.readAvailable(from: watch.descriptor) { chunk in
      var start = 0
      while let frame = framer.next(chunk, from: &start, limit: GpsdCommand.maxBytes - 1) {
        switch frame {
        case .line(let line): lines.append(Substring(String(decoding: line, as: UTF8.self)))
        case .overlong: overlong += 1
        }
      }
      return true
    }
    for _ in 0..<overlong { server.overlong(self) }
    for line in lines where isOpen { server.received(line, from: self) }
    // gpsd acts on the commands a read brings, newline or not (`?POLL;` alone is answered):
    // what is held up to a `;` is a line.
    if case .endOfFile = outcome {
    } else if framer.pendingEnds(with: UInt8(ascii: ";")), let last = framer.finish(), isOpen {
      server.received(Substring(String(decoding: last, as: UTF8.self)), from: self)
    }
    switch outcome {
    case .endOfFile:
      // A last command without its newline still counts (gpsd reads `?POLL;` the same way).
      if let last = framer.finish(), isOpen {
        server.received(Substring(String(decoding: last, as: UTF8.self)), from: self)
      }
      server.drop(self, reason: "closed by peer", level: .debug)
    case .failed(let error): server.drop(self, reason: error.description, level: .debug)
    case .wouldBlock, .shortRead, .budgetSpent, .stopped: updateEvents()
    }
  }

  /// Queues a line; false when the queue passed the limit (the caller drops the client).
  func send(_ bytes: [UInt8]) -> Bool {
    guard let watch else { return true }
    var offset = 0
    if queue.isEmpty {
      do {
        while offset < bytes.count, let sent = try watch.descriptor.send(bytes, from: offset) {
          offset += sent
        }
      } catch {
        server.drop(self, reason: error.description, level: .debug)
        return true
      }
      if offset == bytes.count { return true }
    }
    _ = queue.append(bytes, from: offset)
    updateEvents()
    return queuedBytes <= server.limits.maxQueuedBytes
  }

  private func flush() {
    guard let watch else { return }
    while let oldest = queue.first {
      let sent: Int?
      do { sent = try watch.descriptor.send(oldest.line, from: oldest.offset) } catch {
        server.drop(self, reason: "\(error)", level: .debug)
        return
      }
      guard let sent else { break }
      queue.wrote(sent)
    }
    queue.compact()
    updateEvents()
  }

  private func updateEvents() {
    guard let watch else { return }
    var events: UInt32 = 0
    if queuedBytes <= GpsdServer.readPauseBytes { events |= Epoll.input }
    if queuedBytes > 0 { events |= Epoll.output }
    watch.setEvents(events)
  }

  /// Closes the connection now.
  func shutdown() {
    queue.removeAll()
    watch?.cancel()
    watch = nil
  }

  deinit { watch?.cancel() }
}
