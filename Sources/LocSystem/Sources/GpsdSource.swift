import LocCore

/// `gpsd://HOST:PORT[?nmea=1]`: a client of gpsd (gpsd_json(5)). After gpsd's `VERSION`
/// greeting it asks for reports with `?WATCH={"enable":true,"json":true}` (TPV and SKY,
/// each TPV a fix; the several TPVs gpsd sends per receiver cycle are merged into the last,
/// see `FixCoalescer`) or, with `nmea=1`, `?WATCH={"enable":true,"json":false,"nmea":true}`
/// (the receiver's own sentences, decoded by locd). The connection is a `StreamConnection`:
/// it comes back after gpsd restarts, forever. `setWatching(false)` turns the reports off
/// while staying connected, so gpsd may power the receiver down; `setActive(false)` (locd's
/// acquisition went idle) does that and also stops reconnecting until fixes are wanted again.
/// As the default source (`standInForDefault`) it waits for a gpsd that is not there yet
/// rather than failing, and connects as soon as gpsd's socket appears.
public final class GpsdSource: FixSource {
  public let id: SourceID
  let uri: String
  /// Who can put fixes into it (`SourceURI.trust`).
  let trust: SourceTrust
  let nmea: Bool
  let loop: EventLoop
  let sink: SourceSink
  let connection: StreamConnection
  private var live: LiveDecoder!

  /// gpsd must greet within this long after the connection opens, or it is not gpsd.
  static let greetingTimeoutMicroseconds: UInt64 = 5_000_000

  /// Whether locd wants reports (see `setWatching`).
  public private(set) var wantsWatch = true
  /// What gpsd has said on this connection, and its counters.
  private var session = GpsdSession()
  private var greetingTimer: Timer?
  /// As the default source: gpsd's socket, followed until the source stops (nil otherwise).
  private var gpsdSocket: GpsdSocketWatch?

  /// Whether gpsd confirmed that reports are on (its last `WATCH` reply on this connection).
  public var watching: Bool { session.watching }
  /// gpsd's `WATCH` replies with reports on.
  public var watchEnables: Int { session.watchEnables }
  /// gpsd's `WATCH` replies with reports off.
  public var watchDisables: Int { session.watchDisables }
  /// gpsd's release from its greeting, e.g. "3.22".
  public var release: String? { session.release }

  /// A gpsd client for `host`:`port`; `nmea`: ask for raw NMEA instead of JSON reports.
  public init(id: SourceID, host: String, port: Int, nmea: Bool, loop: EventLoop, sink: SourceSink) {
    self.id = id
    self.nmea = nmea
    self.loop = loop
    self.sink = sink
    self.uri = SourceURI.gpsd(host: host, port: port, nmea: nmea).description
    self.trust = SourceURI.gpsd(host: host, port: port, nmea: nmea).trust
    self.connection = StreamConnection(host: host, port: port, name: uri, loop: loop)
    self.live = LiveDecoder(
      loop: loop, gpsdJSON: true, coalescingSameTime: !nmea,
      onSky: { [unowned self] sky in self.sink.sky(sky, self.id) }
    ) { [unowned self] fix, start in self.sink.fix(fix, self.id, self.connection.serverWriter(), start) }
    live.relay = { [unowned self] line in self.sink.sentence(line, self.id) }
    live.onLine = { [unowned self] line in self.inspect(line) }
    live.logSilences(of: "source \(uri): gpsd", to: sink.log) { [unowned self] in
      self.sink.update(self.snapshot, false)
    }
    connection.handlers = StreamConnection.Handlers(
      connected: { [unowned self] in self.connected() },
      bytes: { [unowned self] bytes in self.live.feed(bytes) },
      disconnected: { [unowned self] in self.disconnected() },
      stateChanged: { [unowned self] in self.sink.update(self.snapshot, false) },
      log: sink.log)
  }

  public var snapshot: SourceSnapshot {
    let c = live.counters
    let counters =
      c.sourceCounters + [Counter("gpsdReports", c.gpsdReports), Counter("silences", live.silences)]
      + connection.counters + session.counters
    let snapshot = SourceSnapshot(
      id: id, uri: uri, state: connection.state, counters: counters + (gpsdSocket?.counters ?? []),
      lastError: connection.lastError ?? session.protocolError, trust: trust, fault: live.fault)
    guard gpsdSocket != nil else { return snapshot }
    return snapshot.asDefaultSource(nobodyListens: connection.nobodyListens)
  }

  /// Makes this the default source, used because none is configured
  /// (`DaemonConfig.usesDefaultSource`): nothing listening is "waiting" rather than a failure
  /// (`SourceSnapshot.asDefaultSource`), and when gpsd's socket `socketPath` appears (gpsd or
  /// gpsd.socket starting) it connects at once instead of at the next attempt of the backoff.
  /// Before `start`.
  public func standInForDefault(socketPath: String) {
    connection.handlers.waitsWhenNobodyListens = true
    gpsdSocket = GpsdSocketWatch(loop: loop, path: socketPath, log: sink.log) { [weak self] in
      self?.connection.peerMayListen()
    }
  }

  public func setSkiesWanted(_ wanted: Bool) { live.assemblesSkies = wanted }

  public func setActive(_ active: Bool) {
    setWatching(active)
    if active { connection.resume() } else { connection.pause() }
  }

  public func start() {
    greetingTimer = try? loop.timer(clock: .monotonic, accuracyMicroseconds: 10_000) { [weak self] in
      self?.connection.drop("no VERSION greeting within 5 s: is this gpsd?")
    }
    connection.start()
  }

  public func stop() {
    gpsdSocket?.stop()
    connection.stop()
    live.stop()
    greetingTimer?.cancel()
    greetingTimer = nil
  }

  /// Turns gpsd's reports on or off (`?WATCH={"enable":false}`) while staying connected;
  /// the choice holds across reconnections. With reports off gpsd may close the receiver,
  /// and silence is not counted.
  public func setWatching(_ on: Bool) {
    guard on != wantsWatch else { return }
    wantsWatch = on
    if connection.isConnected && session.greeted { sendWatch() }
  }

  private func sendWatch() {
    let command: String
    if !wantsWatch {
      command = #"?WATCH={"enable":false}"#
    } else if nmea {
      command = #"?WATCH={"enable":true,"json":false,"nmea":true}"#
    } else {
      command = #"?WATCH={"enable":true,"json":true}"#
    }
    sink.log(.debug, "source \(uri): \(command)")
    connection.send(Array((command + "\n").utf8))
  }

  private func connected() {
    session.connected()
    live.begin()
    live.watchesSilence = false
    greetingTimer?.arm(atMicroseconds: loop.monotonicMicroseconds + GpsdSource.greetingTimeoutMicroseconds)
    sink.update(snapshot, true)
  }

  private func disconnected() {
    greetingTimer?.disarm()
    live.end()
    session.disconnected()
  }

  /// Acts on gpsd's own messages (`GpsdSession` reads them): the greeting asks for
  /// reports, a watch reply turns the silence watch on or off, an error is logged and
  /// reported (`lastError`).
  private func inspect(_ line: UnsafeRawBufferPointer) {
    switch session.inspect(line) {
    case .greeting(let v):
      greetingTimer?.disarm()
      sink.log(
        .debug,
        "source \(uri): gpsd \(v.release ?? "?") protocol \(v.protocolMajor ?? 0).\(v.protocolMinor ?? 0)")
      if wantsWatch { sendWatch() }
    case .watch(let on):
      live.watchesSilence = on
    case .error(let text):
      sink.log(.warning, "source \(uri): gpsd says: \(text)")
      // `lastError` until the next connection: reported so status shows it, once the line
      // is decoded (the snapshot reads the decoder's counters, in use until then).
      loop.soon { [weak self] in
        guard let self else { return }
        self.sink.update(self.snapshot, false)
      }
    case nil:
      break
    }
  }

  /// The most arrays and objects nested in one another that `JSON.parse` holds with its
  /// default `maxDepth` of 32 (counted from 0), which the decoder's `GpsdMessage.parse`
  /// uses; gpsd's own reports nest 3 deep.
  static let maxNesting = 33

  /// Whether arrays and objects in `line` nest deeper than `limit` (brackets inside strings
  /// do not count); stops at the first level past it.
  static func nesting(of line: UnsafeRawBufferPointer, over limit: Int) -> Bool {
    var depth = 0
    var inString = false
    var escaped = false
    for b in line {
      if inString {
        if escaped {
          escaped = false
        } else if b == 0x5C {
          escaped = true
        } else if b == 0x22 {
          inString = false
        }
        continue
      }
      switch b {
      case 0x22: inString = true
      case 0x5B, 0x7B:
        depth += 1
        if depth > limit { return true }
      case 0x5D, 0x7D: depth -= 1
      default: break
      }
    }
    return false
  }

  /// Whether a JSON line starts `{"class":"NAME"` (gpsd always writes the class first).
  static func hasClass(_ line: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
    let prefix: StaticString = #"{"class":""#
    let total = prefix.utf8CodeUnitCount + name.utf8CodeUnitCount + 1
    guard line.count >= total else { return false }
    for i in 0..<prefix.utf8CodeUnitCount where line[i] != prefix.utf8Start[i] { return false }
    let offset = prefix.utf8CodeUnitCount
    for i in 0..<name.utf8CodeUnitCount where line[offset + i] != name.utf8Start[i] { return false }
    return line[total - 1] == 0x22  // "
  }
}
