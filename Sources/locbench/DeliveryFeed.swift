import LocCore
import LocSystem
import Synchronization

/// The receiver that feeds the delivery measurement (`locbench daemon --latency-only` and
/// `--delivery-floor`): a thread that connects to a Unix socket where the program under
/// measurement takes NMEA (locd's `nmea+unix-listen://` source, or the floor's relay) and
/// writes one receiver cycle, GGA then RMC in one write, every 105 ms (the rate of the
/// replayed log this replaced). Each cycle's fix time is the wall clock when it is written,
/// cut to the centisecond NMEA carries; the feed keeps the exact time of each write, by the
/// fix time, so a subscriber's line is timed from the moment its fix's bytes were sent: what
/// an app feels from a receiver (gpsd, a serial line) to its event. The position moves east
/// at about 5 m/s, as the RMC's speed and course say, so every fix is accepted.
final class DeliveryFeed: Sendable {
  /// The rate of cycles (one every 105 ms, about 9.5 a second).
  static let periodMicroseconds: Int64 = 105_000
  /// Each write's wall-clock time (µs), by its fix's time in milliseconds since the epoch.
  private let sent = Mutex<[Int64: Int64]>([:])
  private let stopped = Atomic<Bool>(false)
  /// Set once the thread ended (its socket is closed).
  private let ended = Atomic<Bool>(false)

  /// Starts the feed's thread; it connects to `path` (retrying for 5 s) and writes until
  /// `stop`. Nil when no thread could be started.
  static func start(to path: String) -> DeliveryFeed? {
    let feed = DeliveryFeed()
    guard DetachedThread.start({ feed.run(path) }) else { return nil }
    return feed
  }

  /// Stops writing and waits (at most a second) for the thread to close its socket.
  func stop() {
    stopped.store(true, ordering: .relaxed)
    var waited: Int64 = 0
    while !ended.load(ordering: .acquiring) && waited < 1_000_000 {
      Clocks.sleep(microseconds: 10_000)
      waited += 10_000
    }
  }

  /// When the bytes of the fix dated `fixTime` were written (µs since the epoch), if they were.
  func sentAt(fixTime: Instant) -> Int64? {
    let key = fixTime.microsecondsSinceEpoch / 1000
    return sent.withLock { $0[key] }
  }

  private func run(_ path: String) {
    defer { ended.store(true, ordering: .releasing) }
    guard let socket = Self.connect(path, until: Clocks.microseconds(.monotonic) + 5_000_000) else { return }
    let start = Clocks.microseconds(.monotonic)
    var cycle: Int64 = 0
    while !stopped.load(ordering: .relaxed) {
      cycle += 1
      Clocks.sleep(microseconds: start + cycle * Self.periodMicroseconds - Clocks.microseconds(.monotonic))
      let now = Clocks.microseconds(.realtime)
      let fixTime = Instant(microsecondsSinceEpoch: now - now % 10_000)
      let bytes = Self.cycle(at: fixTime, step: cycle)
      let stamp = Clocks.microseconds(.realtime)
      sent.withLock { $0[fixTime.microsecondsSinceEpoch / 1000] = stamp }
      do { try socket.writeAll(bytes) } catch { return }
    }
  }

  /// A connection to `path`, tried every 10 ms until the monotonic `deadline` (µs).
  private static func connect(_ path: String, until deadline: Int64) -> FileDescriptor? {
    while Clocks.microseconds(.monotonic) < deadline {
      if let socket = try? UnixSocket.connect(path: path) { return socket }
      Clocks.sleep(microseconds: 10_000)
    }
    return nil
  }

  /// One receiver cycle dated `time`, written by locd's own NMEAWriter (the gpsd face's and
  /// the NMEA pty's): GGA (GPS fix, 10 satellites, HDOP 0.8) then RMC (valid, 10.3 knots
  /// towards 090°), `step` cycles of 0.00001° of longitude (0.56 m) east of 59.9139°N
  /// 10.7522°E, back after 10,000 steps (17 min, longer than any run).
  static func cycle(at time: Instant, step: Int64) -> [UInt8] {
    let fix = Fix(
      time: time, coordinate: Coordinate(lat: 59.9139, lon: 10.7522 + Double(step % 10_000) * 0.000_01),
      mode: .threeD, quality: .gps, altitudeMSL: Meters(25), geoidSeparation: Meters(40),
      speed: MetersPerSecond(10.3 * NMEAWriter.knot), course: Degrees(90), satellitesUsed: 10, hdop: 0.8)
    return Array((NMEAWriter.gga(fix) + NMEAWriter.rmc(fix)).utf8)
  }
}
