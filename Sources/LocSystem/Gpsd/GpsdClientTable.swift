import LocCore

/// The clients of one `GpsdServer` (the gpsd face, or the NMEA output's port) and the slots
/// they hold (`ClientSlots`, as the socket's): at most `MaxClients=`, the last
/// `ReservedAdminClients=` of them only for peers with admin access, and at most
/// `MaxClientsPerUser=` of one uid below admin. So neither one user nor several together can
/// take the slots root needs. A client holds its slot from its admission until it is dropped.
struct GpsdClientTable {
  private var connections: [SessionID: GpsdConnection] = [:]
  private var slots: ClientSlots

  /// No clients, with `limits`.
  init(_ limits: GpsdServer.Limits) {
    slots = ClientSlots(
      maxClients: limits.maxClients, reservedForAdmin: limits.reservedAdminClients,
      maxPerUser: limits.maxClientsPerUser)
  }

  /// New limits (a reload); the clients connected keep their slots.
  mutating func apply(_ limits: GpsdServer.Limits) {
    slots.maxClients = limits.maxClients
    slots.reservedForAdmin = limits.reservedAdminClients
    slots.maxPerUser = limits.maxClientsPerUser
  }

  /// Whether a peer of `uid` (an administrator or not) gets a slot now.
  func decide(uid: UInt32, admin: Bool) -> ClientSlots.Decision { slots.decide(uid: uid, admin: admin) }

  /// The client of `id`.
  subscript(id: SessionID) -> GpsdConnection? { connections[id] }

  /// Every client, in no order.
  var all: [GpsdConnection] { Array(connections.values) }

  /// `connection` takes a slot.
  mutating func insert(_ connection: GpsdConnection) {
    guard connections.updateValue(connection, forKey: connection.id) == nil else { return }
    slots.take(uid: connection.peer.uid)
  }

  /// The client of `id` gives its slot back; nil if it held none.
  mutating func remove(_ id: SessionID) -> GpsdConnection? {
    guard let connection = connections.removeValue(forKey: id) else { return nil }
    slots.release(uid: connection.peer.uid)
    return connection
  }
}

extension GpsdServer {
  /// The limits on clients.
  struct Limits {
    var maxClients: Int
    /// Of `maxClients`, the slots only peers with admin access get.
    var reservedAdminClients: Int
    var maxClientsPerUser: Int
    var maxQueuedBytes: Int
    /// The gpsd face's (`[Gpsd]`).
    init(_ config: DaemonConfig) {
      maxClients = config.gpsd.maxClients
      reservedAdminClients = config.gpsd.reservedAdminClients
      maxClientsPerUser = config.gpsd.maxClientsPerUser
      maxQueuedBytes = config.gpsd.maxQueuedBytesPerClient
    }
    /// The NMEA output's port's (`[NMEAOut]`; the queue's limit is the gpsd face's).
    init(nmeaOut config: DaemonConfig) {
      maxClients = config.nmeaOut.maxClients
      reservedAdminClients = config.nmeaOut.reservedAdminClients
      maxClientsPerUser = config.nmeaOut.maxClientsPerUser
      maxQueuedBytes = config.gpsd.maxQueuedBytesPerClient
    }
  }
}
