import LocCore
import LocProtocol

/// Accepting connections, and what to do when accept(2) fails. Out of descriptors (EMFILE,
/// ENFILE) is the case that matters: the connection stays pending, epoll keeps saying the
/// socket is readable, and a loop that only logs and returns spins at full speed. Instead:
/// - a spare descriptor (/dev/null) is kept open. Out of descriptors, it is closed, the
///   waiting connection accepted into its number, answered `too-many-clients` ("out of file
///   descriptors") and closed, and the spare opened again: every client hears why, the
///   backlog drains, and the listener is quiet until the next client comes;
/// - when that cannot be done (the spare could not be opened again) or accept fails
///   otherwise, the listener is switched off and tried again after a back-off (0.1 s,
///   doubling up to 5 s) or as soon as a client's descriptor is closed;
/// - the shortage is logged once when it starts and once, with a count, when it ends.
extension ControlServer {
  /// First and longest wait before accepting again after a failure, microseconds.
  static let acceptBackoff: ClosedRange<UInt64> = 100_000...5_000_000

  func acceptAll() {
    guard let listener = listening.watch else { return }
    while true {
      let accepted: FileDescriptor?
      do {
        accepted = try listener.descriptor.accept()
      } catch  where error.code == Errno.connectionAbort {
        continue
      } catch  where error.code == Errno.tooManyOpenFiles || error.code == Errno.tooManyOpenFilesInSystem {
        shortageBegins(error)
        guard refuseWithSpareDescriptor() else { return }
        continue
      } catch {
        shortageBegins(error)
        pauseAccepting()
        return
      }
      guard let socket = accepted else { return }
      shortageEnds()
      bump { $0.accepted += 1 }
      admit(socket)
    }
  }

  /// Out of descriptors: answers one waiting client through the spare descriptor's number.
  /// False when there is nothing more to do now (no client waiting, or no spare: then the
  /// listener is switched off for a while).
  private func refuseWithSpareDescriptor() -> Bool {
    guard listening.spare != nil else {
      pauseAccepting()
      return false
    }
    listening.spare = nil
    defer { listening.spare = try? FileIO.openForReading(path: "/dev/null") }
    guard let listener = listening.watch else { return false }
    let accepted: FileDescriptor?
    do { accepted = try listener.descriptor.accept() } catch {
      // Not even the spare's number was enough (ENFILE: another process took it).
      pauseAccepting()
      return false
    }
    guard let socket = accepted else { return false }
    bump { $0.refusedNoDescriptors += 1 }
    listening.shortage?.refused += 1
    refuse(socket, RequestError(.tooManyClients, "locd is out of file descriptors; try again later"))
    return true
  }

  private func shortageBegins(_ error: Errno) {
    guard listening.shortage == nil else { return }
    listening.shortage = (loop.monotonicMicroseconds, 0)
    let why =
      error.code == Errno.tooManyOpenFiles || error.code == Errno.tooManyOpenFilesInSystem
      ? "out of file descriptors (\(error)); new clients are answered too-many-clients until one is free"
      : "\(error); trying again shortly"
    handlers.log(.warning, "accept: \(why)")
  }

  private func shortageEnds() {
    guard let shortage = listening.shortage else { return }
    listening.shortage = nil
    listening.backoffMicroseconds = 0
    let seconds = Double(loop.monotonicMicroseconds &- shortage.since) / 1e6
    handlers.log(
      .notice,
      "accept: serving new clients again after \(TimeFormat.duration(.seconds(seconds))); "
        + "\(shortage.refused) turned away meanwhile")
  }

  /// Switches the listener off until the back-off passes or a descriptor is freed.
  private func pauseAccepting() {
    guard let listener = listening.watch else { return }
    listener.setEnabled(false)
    let range = ControlServer.acceptBackoff
    let doubled = listening.backoffMicroseconds * 2
    listening.backoffMicroseconds = min(range.upperBound, max(range.lowerBound, doubled))
    if listening.retry == nil {
      listening.retry = try? loop.timer(clock: .monotonic, accuracyMicroseconds: 10_000) { [weak self] in
        self?.resumeAccepting()
      }
    }
    listening.retry?.arm(atMicroseconds: loop.monotonicMicroseconds + listening.backoffMicroseconds)
  }

  /// Listens again (at once if a connection waits: the socket's readiness is level-triggered).
  private func resumeAccepting() {
    listening.retry?.disarm()
    listening.watch?.setEnabled(true)
  }

  /// A client's descriptor was closed: if the listener was switched off for want of one,
  /// it is switched on again.
  func descriptorFreed() {
    if listening.retry?.deadline != nil { resumeAccepting() }
  }

  /// A new connection: a slot, the greeting and the hello deadline, or a refusal that says why.
  private func admit(_ socket: consuming FileDescriptor) {
    guard let peer = UnixSocket.peer(of: socket) else { return }
    let admin = handlers.access(peer) == .admin
    switch slots.decide(uid: peer.uid, admin: admin) {
    case .admit:
      break
    case .full:
      bump { $0.refusedTooMany += 1 }
      logThrottled(.info, "client (pid \(peer.pid), uid \(peer.uid)) refused: \(limits.maxClients) clients")
      refuse(
        socket,
        RequestError(.tooManyClients, "locd serves \(limits.maxClients) clients already; try again later"))
      return
    case .reservedForAdmin:
      bump { $0.refusedTooMany += 1 }
      let reserved = limits.reservedAdminClients
      logThrottled(.info, "client (pid \(peer.pid), uid \(peer.uid)) refused: only admin slots are free")
      refuse(
        socket,
        RequestError(
          .tooManyClients,
          "locd serves \(limits.maxClients - reserved) clients already (\(reserved) more are kept for administrators); try again later"
        ))
      return
    case .perUserLimit:
      bump { $0.refusedPerUser += 1 }
      let most = limits.maxClientsPerUser
      logThrottled(
        .info, "client (pid \(peer.pid), uid \(peer.uid)) refused: \(most) connections of that uid")
      refuse(
        socket,
        RequestError(
          .tooManyClients, "uid \(peer.uid) has \(most) connections to locd open already (MaxClientsPerUser)")
      )
      return
    }
    let id = sessionIDs.take()
    do {
      let client = try ClientConnection(server: self, socket: socket, id: id, peer: peer)
      slots.take(uid: peer.uid)
      clients.insert(client)
      client.send(ServerMessage.greeting(Greeting(serverVersion: listening.serverVersion)).line)
    } catch {
      handlers.log(.warning, "client setup: \(error), dropping it")
    }
  }

  /// Answers a connection that gets no slot with `error` instead of the greeting and closes
  /// it. A fresh socket's buffer is empty, so the one line fits.
  private func refuse(_ socket: consuming FileDescriptor, _ error: RequestError) {
    let line = ServerMessage.failure(nil, error).line + "\n"
    _ = try? socket.send(Array(line.utf8))
  }
}

/// The server's accepting side: the listening socket (owned by its watch), the spare
/// descriptor closed when accept(2) says EMFILE so the waiting client can be told why it is
/// not served, the shortage while it lasts, the retry after a failure that switched the
/// listener off with its backoff, and the version every greeting names. Touched on accepts
/// only, never per message.
final class ListeningSide {
  /// The listening socket, owned by its watch.
  var watch: IOWatch?
  /// Kept open to be closed when accept(2) says EMFILE.
  var spare: FileDescriptor?
  /// While out of descriptors: since when (monotonic µs) and how many were turned away.
  var shortage: (since: UInt64, refused: Int)?
  /// Retries accepting after a failure that switched the listener off.
  var retry: Timer?
  var backoffMicroseconds: UInt64 = 0
  /// The server's name and version in the greeting.
  let serverVersion: String

  init(serverVersion: String) { self.serverVersion = serverVersion }
}
