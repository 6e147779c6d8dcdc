import CLocShim

#if canImport(Glibc)
  import Glibc
#endif

/// An IPv4 or IPv6 socket address (a sockaddr_in or sockaddr_in6 held in a
/// sockaddr_storage), as getaddrinfo(3), accept(2) and recvfrom(2) produce them.
public struct SocketAddress: CustomStringConvertible, Sendable {
  /// SOCK_STREAM, the socket type of a TCP or Unix stream socket (socket(2)).
  public static let streamSocket = Int32(SOCK_STREAM.rawValue)
  /// SOCK_DGRAM, the socket type of a UDP or Unix datagram socket (socket(2)).
  public static let datagramSocket = Int32(SOCK_DGRAM.rawValue)

  var storage = sockaddr_storage()
  var length: socklen_t = 0

  /// An empty address, to be filled by `withMutableSockaddr`.
  init() {}

  /// A copy of `length` bytes at `address`.
  init(_ address: UnsafePointer<sockaddr>, length: socklen_t) {
    let n = min(Int(length), MemoryLayout<sockaddr_storage>.size)
    withUnsafeMutableBytes(of: &storage) { raw in
      raw.copyMemory(from: UnsafeRawBufferPointer(start: address, count: n))
    }
    self.length = socklen_t(n)
  }

  /// A copy of the sockaddr bytes `bytes` (as `bytes` gives them); nil when they do not fit
  /// a sockaddr_storage.
  init?(bytes: some Collection<UInt8>) {
    guard bytes.count <= MemoryLayout<sockaddr_storage>.size else { return nil }
    withUnsafeMutableBytes(of: &storage) { raw in raw.copyBytes(from: bytes) }
    length = socklen_t(bytes.count)
  }

  /// The sockaddr's bytes, to carry the address through a socket (`HostResolver`).
  var bytes: [UInt8] { withUnsafeBytes(of: storage) { Array($0.prefix(Int(length))) } }

  /// AF_INET or AF_INET6.
  public var family: Int32 { Int32(storage.ss_family) }

  /// Calls `body` with the address as a sockaddr pointer and its length.
  func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
    withUnsafePointer(to: storage) { p in
      p.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
    }
  }

  /// Lets a call such as accept(2) fill the address; `length` is set from what it reports.
  mutating func withMutableSockaddr<R>(
    _ body: (UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> R
  )
    -> R
  {
    length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    var len = length
    let r = withUnsafeMutablePointer(to: &storage) { p in
      p.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, &len) }
    }
    length = len
    return r
  }

  /// `127.0.0.1:2947` or `[::1]:2947` (getnameinfo(3) with NI_NUMERICHOST | NI_NUMERICSERV).
  public var description: String {
    var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
    var service = [CChar](repeating: 0, count: 32)
    let r = withSockaddr { p, len in
      getnameinfo(
        p, len, &host, socklen_t(host.count), &service, socklen_t(service.count),
        NI_NUMERICHOST | NI_NUMERICSERV)
    }
    guard r == 0 else { return "?" }
    let h = SocketAddress.string(host)
    let s = SocketAddress.string(service)
    return family == AF_INET6 ? "[\(h)]:\(s)" : "\(h):\(s)"
  }

  /// The port, in host byte order.
  public var port: Int {
    withSockaddr { p, _ in
      if family == AF_INET6 {
        return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
          Int(UInt16(bigEndian: $0.pointee.sin6_port))
        }
      }
      return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
        Int(UInt16(bigEndian: $0.pointee.sin_port))
      }
    }
  }

  /// The text before the NUL of a C string buffer.
  static func string(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Whether `host` is a literal IPv4 or IPv6 address (inet_pton(3)), which resolves
  /// without asking any name service.
  public static func isNumeric(_ host: String) -> Bool {
    var buffer = in6_addr()
    return inet_pton(AF_INET, host, &buffer) == 1 || inet_pton(AF_INET6, host, &buffer) == 1
  }

  /// Why a name did not resolve.
  public struct ResolveError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `resolve HOST: Name or service not known`.
    public var description: String
  }

  /// The addresses of `host` and `port` for `socketType` (SOCK_STREAM or SOCK_DGRAM), IPv4 and
  /// IPv6, in getaddrinfo(3)'s order (RFC 6724 preferences). `passive`: for bind(2). Blocks
  /// while a name service answers; `HostResolver` calls it off the loop for names.
  public static func resolve(host: String, port: Int, socketType: Int32, passive: Bool) throws(ResolveError)
    -> [SocketAddress]
  {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = socketType
    hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0) | (isNumeric(host) ? AI_NUMERICHOST : 0)
    var list: UnsafeMutablePointer<addrinfo>? = nil
    let r = getaddrinfo(host, String(port), &hints, &list)
    guard r == 0 else {
      let why = r == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(r))
      throw ResolveError(description: "resolve \(host): \(why)")
    }
    defer { freeaddrinfo(list) }
    var result: [SocketAddress] = []
    var entry = list
    while let e = entry {
      if let a = e.pointee.ai_addr, e.pointee.ai_family == AF_INET || e.pointee.ai_family == AF_INET6 {
        result.append(SocketAddress(a, length: e.pointee.ai_addrlen))
      }
      entry = e.pointee.ai_next
    }
    guard !result.isEmpty else { throw ResolveError(description: "resolve \(host): no IPv4 or IPv6 address") }
    return result
  }
}
