import LocCore

/// One connection that talks to the GeoClue face (a unique name such as ":1.42"): its
/// credentials and the watch that tells when it leaves.
final class GeoCluePeer {
  /// The unique name.
  let name: String
  /// uid, pid and groups, once the bus told them.
  var credentials: Peer?
  /// Who waits for the credentials.
  var waiting: [(Result<Peer, BusProblem>) -> Void] = []
  /// The watch on the connection (it fires when the connection ends).
  var track: BusPeerTrack?
  /// Called once when the connection has left the bus.
  let vanished: (String) -> Void

  init(name: String, vanished: @escaping (String) -> Void) {
    self.name = name
    self.vanished = vanished
  }

  /// Whether nobody waits for its credentials (the face keeps nothing for it: it may go).
  var isIdle: Bool { waiting.isEmpty }
}

/// The peers of the GeoClue face by unique name. Credentials are asked once per connection
/// (org.freedesktop.DBus.GetConnectionCredentials, asynchronously: the loop never waits on
/// the bus) and the connection is watched (`BusConnection.track`) from before that question, so
/// a peer that leaves is noticed either way (the question fails, or the track empties).
final class GeoCluePeerDirectory {
  private(set) var peers: [String: GeoCluePeer] = [:]
  let vanished: (String) -> Void

  /// A directory; `vanished` is told the name of each connection that left.
  init(vanished: @escaping (String) -> Void) { self.vanished = vanished }

  /// The peer `name`, watched from now on.
  func peer(_ name: String, on bus: BusConnection) throws(Errno) -> GeoCluePeer {
    if let known = peers[name] { return known }
    let peer = GeoCluePeer(name: name, vanished: vanished)
    peer.track = try bus.track(name) { [weak peer] in
      guard let peer else { return }
      withExtendedLifetime(peer) { peer.vanished(peer.name) }
    }
    peers[name] = peer
    return peer
  }

  /// Calls `done` with the credentials of `name` (at once when known).
  func credentials(
    of name: String, on bus: BusConnection, _ done: @escaping (Result<Peer, BusProblem>) -> Void
  ) {
    let peer: GeoCluePeer
    do { peer = try self.peer(name, on: bus) } catch {
      done(.failure(BusProblem("cannot watch \(name): \(error)")))
      return
    }
    if let known = peer.credentials {
      done(.success(known))
      return
    }
    peer.waiting.append(done)
    guard peer.waiting.count == 1 else { return }  // already asked
    do {
      try bus.askCredentials(of: name) { [weak peer] reply in
        guard let peer else { return }
        let result: Result<Peer, BusProblem>
        if let problem = reply.errorText {
          result = .failure(BusProblem("cannot learn who \(name) is: \(problem)"))
        } else {
          do { result = .success(try reply.readConnectionCredentials()) } catch {
            result = .failure(BusProblem("cannot read the credentials of \(name): \(error)"))
          }
        }
        if case .success(let credentials) = result { peer.credentials = credentials }
        let waiting = peer.waiting
        peer.waiting = []
        for w in waiting { w(result) }
      }
    } catch {
      peer.waiting = []
      done(.failure(BusProblem("cannot ask who \(name) is: \(error)")))
    }
  }

  /// Forgets `name` (it left, or nothing is kept for it).
  func forget(_ name: String) {
    peers[name] = nil
  }

  /// Forgets `name` if nothing is kept for it.
  func forgetIfIdle(_ name: String) {
    if let peer = peers[name], peer.isIdle { peers[name] = nil }
  }

  /// Forgets every peer (the connection is closing).
  func removeAll() { peers = [:] }
}
