import LocCore

/// The gpsd-compatible face's sockets (docs/GPSD.md): a Unix socket, and a loopback TCP port
/// when `[Gpsd] ListenPort=` names one. Each client is identified by the kernel (SO_PEERCRED;
/// NETLINK_SOCK_DIAG for loopback TCP, as the nmea+tcp-listen source does), given a slot,
/// framed, and handed to `GpsdFace`, whose actions this carries out.
final class GpsdServer {
  /// What the server tells the daemon.
  struct Handlers {
    /// The access level of a peer (the socket's policy).
    var access: (Peer) -> AccessLevel
    /// The face's actions for the engine: open, request, close.
    var engine: (GpsdFace.Action) -> Void
    /// Log a line.
    var log: (LogLevel, String) -> Void
    /// The daemon's clock (the simulated one under `--clock replay`).
    var now: () -> Instant
  }

  /// A client whose replies are this far behind is not read until it catches up (its
  /// commands wait in the kernel): a client that sends thousands of commands without reading
  /// the answers costs a queue of this size, not one reply per command.
  static let readPauseBytes = 65536

  /// What a server speaks: gpsd's protocol, or (the NMEA output's TCP port) only sentences.
  enum Flavour: Equatable {
    /// gpsd's JSON protocol (`[Gpsd]`).
    case gpsd
    /// A stream of NMEA sentences to every client, as if each had sent
    /// `?WATCH={"enable":true,"json":false,"nmea":true}`; what clients send is read and
    /// ignored, nothing but sentences is written (`[NMEAOut] ListenPort=`).
    case sentences
  }

  let loop: EventLoop
  /// The limits in effect (a reload changes them; the clients connected keep their slots).
  var limits: Limits { didSet { clients.apply(limits) } }
  let flavour: Flavour
  private let handlers: Handlers
  private let sessionIDs: SessionIDs
  private(set) var face: GpsdFace
  /// One read buffer for every client (read one at a time).
  let reader = ReadBuffer(chunkSize: 4096, maxBytesPerWakeup: 65536)
  /// The listening sockets, and whether each is TCP.
  private var listeners: [(watch: IOWatch, tcp: Bool)] = []
  private var clients: GpsdClientTable
  /// The Unix socket file, removed at `stop`.
  private var socketPath: String?
  /// Connection counters.
  private(set) var counters = GpsdServerCounters()
  /// Where it listens, for status.
  private(set) var endpoints: [String] = []

  init(
    loop: EventLoop, limits: Limits, environment: GpsdFace.Environment, sessionIDs: SessionIDs,
    flavour: Flavour = .gpsd, handlers: Handlers
  ) {
    self.flavour = flavour
    self.loop = loop
    self.limits = limits
    self.handlers = handlers
    self.sessionIDs = sessionIDs
    clients = GpsdClientTable(limits)
    face = GpsdFace(environment: environment)
  }

  /// Listens on the Unix socket and the TCP port of `settings`; what cannot be opened is
  /// logged and the rest serves (the native socket is not affected either way).
  func start(_ settings: GpsdSettings) {
    let name = label
    if let path = settings.socketPath {
      do {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !directory.isEmpty { try FileIO.makeDirectory(path: directory, mode: 0o755) }
        // 0666: anyone may connect; what each client gets is its app's decision.
        let socket = try UnixSocket.listen(path: path, mode: 0o666, gid: nil, backlog: 64)
        try listen(socket, tcp: false)
        socketPath = path
        endpoints.append(path)
      } catch {
        handlers.log(.error, "\(name): cannot listen on \(path): \(error); the Unix socket is not served")
      }
    }
    if let port = settings.listenPort {
      do {
        let address = try SocketAddress.resolve(
          host: "127.0.0.1", port: port, socketType: SocketAddress.streamSocket, passive: true)[0]
        let socket = try InetSocket.listening(address, backlog: 64)
        try socket.setNonBlocking()
        try listen(socket, tcp: true)
        endpoints.append("127.0.0.1:\(port)")
      } catch let error as Errno where error.code == Errno.addressInUse {
        counters.portInUse += 1
        handlers.log(
          .warning,
          "\(name): 127.0.0.1:\(port) is already in use"
            + (flavour == .gpsd
              ? ", most likely by a running gpsd (stop gpsd.socket and "
                + "gpsd.service, or set [Gpsd] ListenPort= to another port); gpsd clients are served on "
                + "\(settings.socketPath ?? "no Unix socket") only"
              : " (set [NMEAOut] ListenPort= to another port)")
            + ", and locd's own socket keeps serving")
      } catch {
        handlers.log(.error, "\(name): cannot listen on 127.0.0.1:\(port): \(error)")
      }
    }
    if !endpoints.isEmpty {
      let what = flavour == .gpsd ? "gpsd's protocol" : "NMEA sentences"
      handlers.log(.info, "\(name): serving \(what) on \(endpoints.joined(separator: ", "))")
    }
  }

  /// How the log names it.
  var label: String { flavour == .gpsd ? "gpsd face" : "NMEA output" }

  private func listen(_ socket: consuming FileDescriptor, tcp: Bool) throws(Errno) {
    let index = listeners.count
    let watch = try loop.watch(socket, events: Epoll.input) { [weak self] _ in self?.acceptAll(index) }
    listeners.append((watch, tcp))
  }

  /// Accepts a bounded batch; the rest waits for the next wakeup.
  private func acceptAll(_ index: Int) {
    guard listeners.indices.contains(index) else { return }
    let (watch, tcp) = listeners[index]
    for _ in 0..<32 {
      var address = SocketAddress()
      let incoming: FileDescriptor?
      do { incoming = try watch.descriptor.accept(peer: &address) } catch { return }
      guard let socket = incoming else { return }
      counters.accepted += 1
      admit(socket, address: address, tcp: tcp)
    }
  }

  /// Identifies a newcomer and gives it a slot, or refuses it with an ERROR.
  private func admit(_ socket: consuming FileDescriptor, address: SocketAddress, tcp: Bool) {
    let peer: Peer
    if !tcp, let cred = UnixSocket.peer(of: socket) {
      peer = cred
    } else if tcp, let local = socket.localAddress(),
      case .success(let uid) = SockDiag.peerUID(peer: address, local: local)
    {
      // The owner of a loopback TCP peer; its process is not known (pid 0).
      peer = Peer(pid: 0, uid: uid, gid: uid, groups: PeerAdmission.groups(ofUID: uid))
    } else {
      counters.unknownPeers += 1
      refuse(socket, "locd: cannot tell who this client is (its uid is unknown); refused")
      return
    }
    let access = handlers.access(peer)
    if let refusal = refusal(peer, admin: access == .admin) {
      refuse(socket, refusal)
      return
    }
    let id = sessionIDs.take()
    let connection: GpsdConnection
    do { connection = try GpsdConnection(server: self, socket: socket, id: id, peer: peer) } catch {
      handlers.log(.warning, "gpsd face: cannot watch a client: \(error)")
      return
    }
    clients.insert(connection)
    let unit = PeerCgroup.unit(of: peer.pid)
    let fallback = flavour == .gpsd ? "gpsd-client" : "nmea-client"
    let app = GpsdServer.appID(peer, unit: unit, fallback: AppID(fallback)!)
    let standing: GpsdFace.Standing = access >= .read ? .plain : .app(app)
    carryOut(face.connected(id, peer: peer, access: access, standing: standing, unit: unit))
    if flavour == .sentences {
      let watch = #"?WATCH={"enable":true,"json":false,"nmea":true}"#
      carryOut(face.received(id, line: Substring(watch), at: handlers.now()))
    }
  }

  /// Why `peer` gets no slot now (counted by reason), nil when it gets one: every slot taken,
  /// only the administrators' left, or its uid's share taken.
  private func refusal(_ peer: Peer, admin: Bool) -> String? {
    let what = flavour == .gpsd ? "gpsd clients" : "NMEA clients"
    switch clients.decide(uid: peer.uid, admin: admin) {
    case .admit:
      return nil
    case .full:
      counters.refusedFull += 1
      return "locd: too many \(what) (MaxClients=\(limits.maxClients)); try again later"
    case .reservedForAdmin:
      counters.refusedReserved += 1
      let reserved = limits.reservedAdminClients
      return "locd: too many \(what): \(limits.maxClients - min(reserved, limits.maxClients)) are served, "
        + "the last \(reserved) slots are kept for administrators; try again later"
    case .perUserLimit:
      counters.refusedPerUser += 1
      return "locd: uid \(peer.uid) has \(limits.maxClientsPerUser) \(what) already (MaxClientsPerUser=)"
    }
  }

  /// The app a client below read access is: the app its Flatpak scope or app unit names; else
  /// its program's name (/proc/PID/comm: what `ps` shows, the process's own word, so as
  /// strong as a hello's claim); else `fallback` (`gpsd-client`; `nmea-client` for the NMEA
  /// output's port).
  static func appID(
    _ peer: Peer, unit: PeerUnit, procRoot: String = "/proc", fallback: AppID = AppID("gpsd-client")!
  ) -> AppID {
    if let verified = unit.verifiedApp { return verified }
    if peer.pid > 0, let bytes = try? FileIO.read(path: "\(procRoot)/\(peer.pid)/comm", limit: 64) {
      var name = String(decoding: bytes, as: UTF8.self)
      if name.hasSuffix("\n") { name.removeLast() }
      if let id = AppID(name) { return id }
    }
    return fallback
  }

  private func refuse(_ socket: consuming FileDescriptor, _ message: String) {
    // An NMEA reader has no way to be told: it is closed without a word (counted; the debug
    // log says why, no louder: a local program could connect in a loop).
    guard flavour == .gpsd else {
      handlers.log(.debug, "\(label): \(message)")
      return
    }
    let line = Array((GpsdReport.error(message) + GpsdReport.end).utf8)
    _ = try? socket.send(line, from: 0)
  }

  func received(_ line: Substring, from connection: GpsdConnection) {
    guard flavour == .gpsd else { return }
    carryOut(face.received(connection.id, line: line, at: handlers.now()))
  }

  func overlong(_ connection: GpsdConnection) {
    guard flavour == .gpsd else { return }
    carryOut(face.overlong(connection.id))
  }

  /// Whether a client wants the receiver's sentences and may have them.
  var wantsSentences: Bool { face.wantsSentences }

  /// One of a receiver's own sentences (`Daemon.relay`).
  func relay(_ sentence: String, device: String) { carryOut(face.relayed(sentence, device: device)) }

  /// A receiver cycle of `device`, each one as it was decoded: its TPV to the full watchers.
  func cycle(_ fix: Fix, device: String) { carryOut(face.cycle(fix, device: device)) }

  /// A source's satellites came: a SKY for the watchers that may have it.
  func skyDecoded() {
    guard flavour == .gpsd else { return }
    carryOut(face.skyDecoded())
  }

  /// The engine answered one of a client's requests.
  func reply(_ session: SessionID, _ id: RequestID, _ result: Result<Response, RequestError>) {
    carryOut(face.replied(session, id, result))
  }

  /// An event for some of the face's sessions.
  func deliver(_ notice: Notice, to sessions: [SessionID]) {
    switch notice {
    case .location(let resolved, let fix): carryOut(face.located(resolved, fix: fix, to: sessions))
    case .authorization(let report):
      for s in sessions { carryOut(face.authorized(s, report)) }
    default: break
    }
  }

  private func carryOut(_ actions: [GpsdFace.Action]) {
    for action in actions {
      switch action {
      case .send(let id, let text): write(text, to: CollectionOfOne(id))
      case .sendAll(let ids, let text): write(text, to: ids)
      case .open, .request, .close: handlers.engine(action)
      }
    }
  }

  /// A reload changed who may read (`Daemon.recheckAccess`): a client whose standing that
  /// changes (a plain session whose user lost read access, or an app whose user gained it)
  /// is told why and dropped, so that it connects again as what it is now; before, a user
  /// taken out of the read group kept reading every fix. The others keep their session.
  /// Writes one line to these clients, its bytes made once; a client whose queue passes the
  /// limit is dropped.
  private func write(_ text: String, to ids: some Sequence<SessionID>) {
    // The NMEA port writes sentences only: no VERSION, WATCH, ERROR, TPV or SKY.
    if flavour == .sentences, text.utf8.first != 0x24, text.utf8.first != 0x21 { return }
    let bytes = Array(text.utf8)
    for id in ids {
      guard let c = clients[id], !c.send(bytes) else { continue }
      counters.droppedSlow += 1
      drop(c, reason: "slow consumer: more than \(limits.maxQueuedBytes) bytes unread", level: .info)
    }
  }

  func accessChanged() {
    for c in clients.all {
      guard let standing = face.standing(of: c.id) else { continue }
      let level = handlers.access(c.peer)
      guard (level >= .read) != (standing == .plain) else { continue }
      counters.droppedAccessChanged += 1
      let now = level >= .read ? "may read every position now" : "may no longer read positions as a member"
      let message = "locd: uid \(c.peer.uid) \(now) (locd's configuration was reloaded); connect again"
      if flavour == .gpsd { _ = c.send(Array((GpsdReport.error(message) + GpsdReport.end).utf8)) }
      drop(c, reason: "its access changed (reload)", level: .info)
    }
  }

  /// Drops a client: its session closes.
  func drop(_ connection: GpsdConnection, reason: String, level: LogLevel) {
    guard clients.remove(connection.id) != nil else { return }
    connection.shutdown()
    handlers.log(
      level,
      "gpsd client \(connection.id.raw) (pid \(connection.peer.pid), uid \(connection.peer.uid)) dropped: \(reason)"
    )
    carryOut(face.disconnected(connection.id))
  }

  /// Status: where it listens, the clients and the counters.
  var report: GpsdReportSummary {
    GpsdReportSummary(
      endpoints: endpoints, clients: face.clientCount, watchers: face.watcherCount, server: counters,
      face: face.counters)
  }

  /// Closes every client and stops listening; the socket file is removed.
  func stop() {
    for c in clients.all { drop(c, reason: "locd is stopping", level: .debug) }
    for l in listeners { l.watch.cancel() }
    listeners.removeAll()
    if let socketPath { try? FileIO.remove(path: socketPath) }
    socketPath = nil
    endpoints.removeAll()
  }
}

/// What the sockets count.
struct GpsdServerCounters: Equatable, Sendable {
  /// Connections accepted.
  var accepted = 0
  /// Refused: every slot taken (`MaxClients=`).
  var refusedFull = 0
  /// Refused: only the slots kept for administrators were free (`ReservedAdminClients=`).
  var refusedReserved = 0
  /// Refused: the peer's uid had its share (`MaxClientsPerUser=`).
  var refusedPerUser = 0
  /// Refused: the peer's uid could not be learnt.
  var unknownPeers = 0
  /// Dropped for not reading what they were sent.
  var droppedSlow = 0
  /// Dropped because a reload changed what they are (read access lost or gained).
  var droppedAccessChanged = 0
  /// The TCP port was taken (by gpsd, most likely).
  var portInUse = 0
}

/// The face's part of status.
struct GpsdReportSummary: Equatable, Sendable {
  var endpoints: [String]
  var clients: Int
  var watchers: Int
  var server: GpsdServerCounters
  var face: GpsdFaceCounters
}

extension GpsdReportSummary {
  /// As status carries it.
  var status: GpsdFaceReport {
    GpsdFaceReport(
      endpoints: endpoints, clients: clients, watchers: watchers,
      counters: [
        Counter("accepted", server.accepted), Counter("refusedFull", server.refusedFull),
        Counter("refusedReserved", server.refusedReserved), Counter("refusedPerUser", server.refusedPerUser),
        Counter("unknownPeers", server.unknownPeers), Counter("droppedSlow", server.droppedSlow),
        Counter("droppedAccessChanged", server.droppedAccessChanged),
        Counter("portInUse", server.portInUse), Counter("commands", face.commands),
        Counter("badCommands", face.badCommands), Counter("watchChanges", face.watchChanges),
        Counter("refusalsTold", face.refusalsTold), Counter("revocationsTold", face.revocationsTold),
        Counter("tpv", face.tpvReports),
        Counter("sky", face.skyReports), Counter("sentences", face.sentences),
        Counter("relayedSentences", face.relayedSentences),
      ])
  }
}
