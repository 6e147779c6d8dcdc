import LocCore

extension NMEAListenSource {
  /// Who connected: what the log calls it, its uid (nil: unknown, with why), its groups
  /// when the connection carries them (SO_PEERGROUPS), and where it stands (`PeerAdmission`).
  struct Newcomer {
    var label: String
    var uid: UInt32?
    var unknownBecause: String?
    var groups: [UInt32]?
    var standing: PeerAdmission.Standing = .unknown
  }

  /// Accepts what is waiting: a bounded batch per wakeup, the rest on the next iteration.
  func acceptAll() {
    guard let listener = binding.watch else { return }
    for _ in 0..<16 {
      var address = SocketAddress()
      let incoming: FileDescriptor?
      do { incoming = try listener.descriptor.accept(peer: &address) } catch { return }
      guard let socket = incoming else { return }
      var newcomer = identify(socket, address)
      newcomer.standing = sink.admission.standing(uid: newcomer.uid) {
        [groups = newcomer.groups, uid = newcomer.uid] in
        groups ?? uid.map(PeerAdmission.groups(ofUID:)) ?? []
      }
      guard let evictee = admit(newcomer) else { continue }  // the socket closes here
      if let evictee { close(evictee.peer, reason: "evicted for \(newcomer.label): \(evictee.reason)") }
      start(socket, newcomer)
    }
  }

  /// The newcomer's identity: SO_PEERCRED for a Unix peer, NETLINK_SOCK_DIAG for a loopback
  /// TCP peer.
  func identify(_ socket: borrowing FileDescriptor, _ address: SocketAddress) -> Newcomer {
    switch endpoint {
    case .unix:
      guard let cred = UnixSocket.peer(of: socket) else {
        return Newcomer(label: "a peer", uid: nil, unknownBecause: "SO_PEERCRED failed", groups: nil)
      }
      return Newcomer(
        label: "uid \(cred.uid) pid \(cred.pid)", uid: cred.uid, groups: cred.groups + [cred.gid])
    case .tcp:
      guard let local = socket.localAddress() else {
        return Newcomer(
          label: address.description, uid: nil, unknownBecause: "getsockname failed", groups: nil)
      }
      switch SockDiag.peerUID(peer: address, local: local) {
      case .success(let uid): return Newcomer(label: "\(address) (uid \(uid))", uid: uid, groups: nil)
      case .failure(let why):
        return Newcomer(
          label: "\(address) (uid unknown)", uid: nil, unknownBecause: why.description, groups: nil)
      }
    }
  }

  /// Whether `newcomer` gets a slot: nil when refused (counted and logged), else the peer to
  /// close first, if any.
  func admit(_ newcomer: Newcomer) -> (peer: Peer, reason: PeerSlotRule.Reason)?? {
    let admission = sink.admission
    let standing = newcomer.standing
    if let why = newcomer.unknownBecause {
      tally.unknownUIDs += 1
      sink.log(
        tally.unknownUIDs == 1 ? .notice : .debug,
        "source \(uri): cannot learn the uid of \(newcomer.label): \(why); treated as untrusted")
    }
    guard admission.admits(standing) else {
      tally.refusedUsers += 1
      let why = standing == .unknown ? "its uid is unknown" : "not in AllowUsers= or AllowGroups="
      sink.log(tally.refusedUsers == 1 ? .notice : .debug, "source \(uri): refused \(newcomer.label): \(why)")
      sink.update(snapshot, false)
      return nil
    }
    let decision = PeerSlotRule.decide(
      uid: newcomer.uid, privileged: standing == .privileged, occupants: peers.map(\.occupant),
      now: loop.monotonicMicroseconds)
    switch decision {
    case .admit: return .some(nil)
    case .evict(let index, let reason):
      tally.evicted += 1
      return (peers[index], reason)
    case .refuse(let reason):
      tally.refused += 1
      sink.log(tally.refused == 1 ? .notice : .debug, "source \(uri): refused \(newcomer.label): \(reason)")
      sink.update(snapshot, false)
      return nil
    }
  }

  /// Serves an admitted peer.
  func start(_ socket: consuming FileDescriptor, _ newcomer: Newcomer) {
    if case .tcp = endpoint { InetSocket.enableKeepAlive(socket) }
    let standing = newcomer.standing
    // Who writes this peer's fixes, for chrony (decision 0060): learned once, as it connects.
    let writer = FixWriter.peer(uid: newcomer.uid, standing: standing, restricted: sink.admission.restricted)
    let live = LiveDecoder(
      loop: loop, gpsdJSON: false, onSky: { [unowned self] sky in self.sink.sky(sky, self.id) }
    ) { [unowned self] fix, start in self.sink.fix(fix, self.id, writer, start) }
    live.relay = { [unowned self] line in self.sink.sentence(line, self.id) }
    live.assemblesSkies = sink.now.skiesWanted()
    let peer = Peer(
      label: newcomer.label, uid: newcomer.uid, privileged: standing == .privileged, live: live,
      at: loop.monotonicMicroseconds)
    live.logSilences(of: "source \(uri): \(newcomer.label)", to: sink.log) { [unowned self] in
      self.sink.update(self.snapshot, false)
    }
    do {
      peer.watch = try loop.watch(socket, events: Epoll.input) { [weak self, unowned peer] _ in
        self?.read(peer)
      }
    } catch {
      return
    }
    peers.append(peer)
    tally.accepted += 1
    live.begin()
    if !active { live.pause() }
    sink.log(.info, "source \(uri): peer \(newcomer.label) connected")
    sink.update(snapshot, true)
  }
}
