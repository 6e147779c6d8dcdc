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

  /// One receiver cycle dated `time`: GGA (3D-capable GPS fix, 10 satellites, HDOP 0.8) then
  /// RMC (valid, 10.3 knots towards 090°), `step` cycles of 0.53 m east of 59°54.834'N
  /// 10°45.132'E (0.00001° of longitude there).
  static func cycle(at time: Instant, step: Int64) -> [UInt8] {
    // "2026-12-07T02:10:05.12Z": the NMEA fields are cut from the ISO form.
    let iso = Array(time.iso8601(fractionDigits: 2).utf8)
    let hhmmss = String(decoding: iso[11..<13] + iso[14..<16] + iso[17..<22], as: UTF8.self)
    let ddmmyy = String(decoding: iso[8..<10] + iso[5..<7] + iso[2..<4], as: UTF8.self)
    // Longitude in NMEA's dddmm.mmmm: 10°45.1320' plus 0.0006' a step (0.00001°), back after
    // 10,000 steps (17 min, longer than any run).
    let minutes10k = 451_320 + Int(step % 10_000) * 6
    let lon = "010" + String(minutes10k / 10_000) + "." + pad(minutes10k % 10_000, 4)
    let gga = "GPGGA,\(hhmmss),5954.8340,N,\(lon),E,1,10,0.8,25.0,M,40.0,M,,"
    let rmc = "GPRMC,\(hhmmss),A,5954.8340,N,\(lon),E,10.3,90.0,\(ddmmyy),,,A"
    return Array((sentence(gga) + sentence(rmc)).utf8)
  }

  /// `$body*CS\r\n` with NMEA's checksum (the XOR of the bytes between `$` and `*`).
  static func sentence(_ body: String) -> String {
    let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
    let hex = Array("0123456789ABCDEF".utf8)
    return "$" + body + "*" + String(decoding: [hex[Int(sum >> 4)], hex[Int(sum & 15)]], as: UTF8.self)
      + "\r\n"
  }

  static func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
  }
}
