import LocCore

/// One attempt's or connection's socket for `StreamConnection`, with its I/O: the watch
/// that owns the descriptor, the address it goes to, the bytes waiting until the peer takes
/// them (at most `StreamConnection.outputLimit`) and the read buffer. Made for each attempt;
/// `close` stops the watch, and the descriptor closes when the last reference goes.
final class StreamSocket {
  /// The address connected (or connecting) to.
  let peer: SocketAddress
  let watch: IOWatch
  private var output: [UInt8] = []
  /// Who owns the server's end, once the kernel said (`serverWriter()`).
  private var knownServerWriter: FixWriter?
  /// Made when the connection is first read, so failed attempts allocate none.
  private lazy var reader = ReadBuffer(
    chunkSize: StreamConnection.readChunk, maxBytesPerWakeup: StreamConnection.readBytesPerWakeup)

  /// The socket of `watch`, going to `peer`.
  init(peer: SocketAddress, watch: IOWatch) {
    self.peer = peer
    self.watch = watch
  }

  /// The connection is up: keep-alive on, nothing queued, watched for input.
  func established() {
    InetSocket.enableKeepAlive(watch.descriptor)
    output.removeAll()
    watch.setEvents(Epoll.input)
  }

  /// Sends `bytes`, queueing what the socket does not take; returns why the connection
  /// must end (a write error, or more than `outputLimit` queued), else nil.
  func send(_ bytes: [UInt8]) -> String? {
    if output.isEmpty {
      let sent: Int
      do { sent = try watch.descriptor.send(bytes) ?? 0 } catch { return "write: \(error)" }
      if sent == bytes.count { return nil }
      output.append(contentsOf: bytes[sent...])
    } else {
      output.append(contentsOf: bytes)
    }
    if output.count > StreamConnection.outputLimit {
      return "peer does not read (\(output.count) bytes queued)"
    }
    watch.setEvents(Epoll.input | Epoll.output)
    return nil
  }

  /// Sends what is queued, as far as the socket takes it (the rest waits for EPOLLOUT);
  /// returns a write error, else nil.
  func flush() -> String? {
    while !output.isEmpty {
      let sent: Int?
      do { sent = try watch.descriptor.send(output) } catch { return "write: \(error)" }
      guard let sent else { return nil }  // the socket buffer is full: wait for EPOLLOUT
      output.removeFirst(sent)
    }
    watch.setEvents(Epoll.input)
    return nil
  }

  /// Reads what the socket has (bounded per wakeup), handing each chunk to `body`, which
  /// returns false to stop.
  func read(_ body: (UnsafeRawBufferPointer) -> Bool) -> ReadBuffer.Outcome {
    reader.readAvailable(from: watch.descriptor, body)
  }

  /// Who owns the server's end of the connection (decision 0060), asked of the kernel at the
  /// first call and kept: the socket whose source is the server's address and whose
  /// destination is ours is the server's accepted one, which has its listener's owner (gpsd's:
  /// root, or systemd's for gpsd.socket). `remoteHost` beyond loopback; nil while the kernel
  /// does not say (asked again at the next call).
  func serverWriter() -> FixWriter? {
    if let known = knownServerWriter { return known }
    guard let local = watch.descriptor.localAddress() else { return nil }
    switch SockDiag.peerUID(peer: peer, local: local) {
    case .success(let uid): knownServerWriter = FixWriter.owner(uid, daemonUID: CurrentProcess.userID)
    case .failure(.notLocal): knownServerWriter = .remoteHost
    case .failure: return nil
    }
    return knownServerWriter
  }

  /// Stops watching; nothing is sent or read any more.
  func close() {
    watch.cancel()
    output.removeAll()
  }
}
