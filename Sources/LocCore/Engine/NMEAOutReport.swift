/// The NMEA pseudo-terminal as `status` shows it (the shell's; docs/NMEAOUT.md).
public struct NMEAOutReport: Sendable, Hashable {
  /// The stable link.
  public var link: String
  /// The pty it points at, once made.
  public var pty: String?
  /// Whether a program has it open now.
  public var reading: Bool
  /// Its counters: `readers` (times a program opened it), `cycles`, `sentences` (rebuilt),
  /// `relayed` (the receiver's own), `dropped` (writes a reader was too far behind for);
  /// with `ListenPort=`, `tcpClients`, `tcpAccepted`, `tcpDroppedSlow`, `tcpSentences`,
  /// `tcpRelayed`, `tcpRefused` (all refusals) and by reason `tcpRefusedFull`,
  /// `tcpRefusedReserved`, `tcpRefusedPerUser`, `tcpUnknownPeers`; `tcpPortInUse`.
  public var counters: [Counter]

  /// A report.
  public init(link: String, pty: String?, reading: Bool, counters: [Counter]) {
    self.link = link
    self.pty = pty
    self.reading = reading
    self.counters = counters
  }
}
