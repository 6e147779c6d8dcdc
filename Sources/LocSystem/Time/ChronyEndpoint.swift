import LocCore

/// The socket of `[Time] ChronySocket=`, reached so that nobody but root or chrony can choose
/// where samples go (decision 0060): its path walked from `/` without following a symbolic
/// link anywhere on it, what is found there checked (`ChronySocketRule`: a socket, one name,
/// owned by root or chrony's user), and a datagram socket connected to that very socket
/// through its /proc/self/fd entry, never by its path. The connection is kept while sends
/// succeed; after a send fails (chronyd stopped: its socket is gone) the next sample walks
/// and checks the path again, so a restarted chronyd's new socket is found and a path
/// changed meanwhile is judged anew.
final class ChronyEndpoint {
  /// What became of one datagram.
  enum Outcome: Equatable {
    case sent
    /// Not sent: what is at the path may not be used.
    case refused(ChronySocketRule.Problem)
    /// Not sent: the path could not be reached or the send failed.
    case failed(Errno)
  }

  /// The connected socket, in a box so that it can be replaced and dropped.
  private final class Connection {
    let socket: FileDescriptor
    init(_ socket: consuming FileDescriptor) { self.socket = socket }
  }

  /// The socket's path.
  let path: String
  /// Who may own it: root and chrony's user.
  let owners: Set<UInt32>
  private var connection: Connection?

  /// The endpoint at `path`, which `owners` may own; nothing opened yet.
  init(path: String, owners: Set<UInt32>) {
    self.path = path
    self.owners = owners
  }

  /// Sends `bytes` as one datagram, opening and checking the socket first if it is not
  /// connected. A full receiver (EAGAIN) keeps the connection; any other failure drops it.
  func send(_ bytes: [UInt8]) -> Outcome {
    if connection == nil {
      switch open() {
      case .connected(let c): connection = c
      case .refused(let problem): return .refused(problem)
      case .failed(let error): return .failed(error)
      }
    }
    guard let connection else { return .failed(Errno(call: "connect \(path)", code: Errno.invalidArgument)) }
    do throws(Errno) {
      try UnixSocket.sendDatagram(bytes, on: connection.socket)
      return .sent
    } catch {
      if !error.isWouldBlock { self.connection = nil }
      return .failed(error)
    }
  }

  private enum Opening {
    case connected(Connection)
    case refused(ChronySocketRule.Problem)
    case failed(Errno)
  }

  /// Walks, checks and connects.
  private func open() -> Opening {
    do throws(Errno) {
      var link: String? = nil
      guard let pinned = try FileDescriptor.openNamingWithoutLinks(path, link: &link) else {
        return .refused(.symbolicLink(path: link ?? path))
      }
      let info = try pinned.status()
      let found: ChronySocketRule.Found
      switch info.kind {
      case .socket: found = .socket(owner: info.owner, links: info.linkCount)
      case .symbolicLink: found = .symbolicLink
      case let kind: found = .other(StateDirectory.kind(kind))
      }
      if let problem = ChronySocketRule.check(found, path: path, owners: owners) { return .refused(problem) }
      return .connected(Connection(try UnixSocket.connectDatagram(to: pinned)))
    } catch {
      return .failed(error)
    }
  }
}
