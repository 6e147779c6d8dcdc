/// The gpsd-compatible face as `status` shows it (the shell's; docs/GPSD.md): where it
/// listens, its clients and watchers, and its counters.
public struct GpsdFaceReport: Sendable, Hashable {
  /// The Unix socket and TCP address it serves.
  public var endpoints: [String]
  /// Clients connected.
  public var clients: Int
  /// Of them, those that watch.
  public var watchers: Int
  /// Its counters (accepted, refused, dropped slow consumers, commands, bad commands, ...).
  public var counters: [Counter]

  /// A report.
  public init(endpoints: [String], clients: Int, watchers: Int, counters: [Counter]) {
    self.endpoints = endpoints
    self.clients = clients
    self.watchers = watchers
    self.counters = counters
  }
}
