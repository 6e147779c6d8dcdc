import LocCore

/// Builds the running source for a configured URI.
public enum SourceFactory {
  /// The source for `uri`, or nil when this build cannot serve it.
  public static func make(_ uri: SourceURI, _ id: SourceID, _ loop: EventLoop, _ sink: SourceSink)
    -> FixSource?
  {
    switch uri {
    case .replay(let path, let speed, let loops):
      return ReplaySource(id: id, path: path, speed: speed, loops: loops, loop: loop, sink: sink)
    case .beaconReplay(let path, let speed, let loops):
      return BeaconReplaySource(id: id, path: path, speed: speed, loops: loops, loop: loop, sink: sink)
    case .gpsd(let host, let port, let nmea):
      return GpsdSource(id: id, host: host, port: port, nmea: nmea, loop: loop, sink: sink)
    case .nmeaTCP(let host, let port):
      return NMEATCPSource(id: id, host: host, port: port, loop: loop, sink: sink)
    case .nmeaTCPListen(let address, let port):
      return NMEAListenSource(id: id, address: address, port: port, loop: loop, sink: sink)
    case .nmeaUnixListen(let path):
      return NMEAListenSource(id: id, endpoint: .unix(path: path), loop: loop, sink: sink)
    case .nmeaUDP(let address, let port):
      return NMEAUDPSource(id: id, address: address, port: port, loop: loop, sink: sink)
    case .serial(let path, let baud):
      return SerialSource(id: id, path: path, baud: baud, loop: loop, sink: sink)
    case .bluez(let adapter):
      return BlueZSource(id: id, adapter: adapter, loop: loop, sink: sink)
    case .modem(let equipment):
      return ModemSource(id: id, equipment: equipment, loop: loop, sink: sink)
    case .compass:
      return CompassSource(id: id, loop: loop, sink: sink)
    }
  }
}
