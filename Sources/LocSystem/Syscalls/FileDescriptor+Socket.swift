import CLocShim

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon's socket calls on a descriptor (a client's are in LocClient's
/// FileDescriptor+Connected).
extension FileDescriptor {
  /// Sends up to `bytes.count` bytes on a connected socket (send(2) with MSG_NOSIGNAL: a
  /// peer that went away is EPIPE, never a SIGPIPE), retrying EINTR; nil when a
  /// non-blocking socket's buffer is full (EAGAIN).
  public func send(_ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int? {
    do {
      return try Syscall.retrying("send") {
        Glibc.send(rawValue, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
      }
    } catch  where error.isWouldBlock {
      return nil
    }
  }

  /// `send(_:)` of `bytes[offset...]`.
  public func send(_ bytes: [UInt8], from offset: Int = 0) throws(Errno) -> Int? {
    let outcome = bytes.withUnsafeBytes { raw in
      Result { () throws(Errno) in try send(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
    }
    return try outcome.get()
  }

  /// Receives one datagram into `buffer` (recv(2), MSG_DONTWAIT), retrying EINTR; its
  /// length (0 for an empty datagram), or nil when none is queued (EAGAIN). A datagram
  /// longer than the buffer is cut.
  public func receive(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int? {
    do {
      return try Syscall.retrying("recv") {
        Glibc.recv(rawValue, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
      }
    } catch  where error.isWouldBlock {
      return nil
    }
  }

  /// Accepts one pending connection of a listening socket (accept4(2): non-blocking,
  /// close-on-exec), retrying EINTR; nil when none is pending (EAGAIN). ECONNABORTED (the
  /// client gave up first), EMFILE and the like are thrown for the caller to weigh.
  public func accept() throws(Errno) -> FileDescriptor? {
    var unused = SocketAddress()
    return try accept(peer: &unused)
  }

  /// `accept()` that also reports the peer's address in `peer`.
  func accept(peer: inout SocketAddress) throws(Errno) -> FileDescriptor? {
    let flags = Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    do {
      let number = try Syscall.retrying("accept") {
        peer.withMutableSockaddr { address, length in locshim_accept4_from(rawValue, address, length, flags) }
      }
      return FileDescriptor(owning: number)
    } catch  where error.isWouldBlock {
      return nil
    }
  }

  /// Sets an integer socket option (setsockopt(2)), e.g. SOL_SOCKET, SO_RCVBUF.
  public func setOption(level: Int32, _ name: Int32, _ value: Int32) throws(Errno) {
    var v = value
    _ = try Syscall.once("setsockopt \(name)") {
      setsockopt(rawValue, level, name, &v, socklen_t(MemoryLayout<Int32>.size))
    }
  }

  /// Asks for a receive buffer of `bytes` (setsockopt(2) SOL_SOCKET, SO_RCVBUF; the kernel
  /// doubles it and caps it at net.core.rmem_max).
  public func setReceiveBufferSize(_ bytes: Int32) throws(Errno) {
    try setOption(level: SOL_SOCKET, SO_RCVBUF, bytes)
  }

  /// How a non-blocking connect(2) ended (getsockopt(2) SO_ERROR): nil when connected.
  func connectResult(_ call: @autoclosure () -> String) -> Errno? {
    var value: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    do {
      _ = try Syscall.once(call()) { getsockopt(rawValue, SOL_SOCKET, SO_ERROR, &value, &length) }
    } catch {
      return error
    }
    return value == 0 ? nil : Errno(call: call(), code: value)
  }

  /// The local address the socket is bound to (getsockname(2)).
  func localAddress() -> SocketAddress? {
    var address = SocketAddress()
    let r = address.withMutableSockaddr { getsockname(rawValue, $0, $1) }
    return r == 0 ? address : nil
  }
}
