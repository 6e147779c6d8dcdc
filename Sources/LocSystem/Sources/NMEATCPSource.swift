import LocCore

/// `nmea+tcp://HOST:PORT`: connects to a peer that sends NMEA sentences (a phone app such as
/// "Share GPS", ser2net in front of a serial receiver, a boat's multiplexer) and decodes
/// them. The connection is a `StreamConnection`: it is retried with backoff forever, and
/// TCP keepalive notices a peer that vanished. Silence is counted, not acted upon. While
/// acquisition is idle the connection is closed (counted in `releases`): a push feed cannot
/// be told to stop sending, and reading it only to ignore it woke locd for every sentence.
/// It is connected again when fixes are wanted.
public final class NMEATCPSource: FixSource {
  public let id: SourceID
  let uri: String
  /// Who can put fixes into it (`SourceURI.trust`).
  let trust: SourceTrust
  let sink: SourceSink
  let connection: StreamConnection
  private var live: LiveDecoder!

  /// A client of `host`:`port`.
  public init(id: SourceID, host: String, port: Int, loop: EventLoop, sink: SourceSink) {
    self.id = id
    self.sink = sink
    self.uri = SourceURI.nmeaTCP(host: host, port: port).description
    self.trust = SourceURI.nmeaTCP(host: host, port: port).trust
    self.connection = StreamConnection(host: host, port: port, name: uri, loop: loop)
    self.live = LiveDecoder(
      loop: loop, gpsdJSON: false, onSky: { [unowned self] sky in self.sink.sky(sky, self.id) }
    ) { [unowned self] fix, start in self.sink.fix(fix, self.id, self.connection.serverWriter(), start) }
    live.relay = { [unowned self] line in self.sink.sentence(line, self.id) }
    live.logSilences(of: "source \(uri)", to: sink.log) { [unowned self] in
      self.sink.update(self.snapshot, false)
    }
    connection.handlers = StreamConnection.Handlers(
      connected: { [unowned self] in
        self.live.begin()
        self.sink.update(self.snapshot, true)
      },
      bytes: { [unowned self] bytes in self.live.feed(bytes) },
      disconnected: { [unowned self] in self.live.end() },
      stateChanged: { [unowned self] in self.sink.update(self.snapshot, false) },
      log: sink.log)
  }

  public var snapshot: SourceSnapshot {
    SourceSnapshot(
      id: id, uri: uri, state: connection.state,
      counters: live.counters.sourceCounters + [Counter("silences", live.silences)] + connection.counters
        + [Counter("idleBytes", live.ignoredBytes), Counter("idleLines", live.ignoredLines)],
      lastError: connection.lastError, trust: trust, fault: live.fault)
  }

  public func start() { connection.start() }

  public func setSkiesWanted(_ wanted: Bool) { live.assemblesSkies = wanted }

  public func setActive(_ active: Bool) {
    if active {
      live.resume()
      connection.resume()
    } else {
      live.pause()
      connection.release()
    }
  }

  public func stop() {
    connection.stop()
    live.stop()
  }
}
