import LocCore
import LocSystem

/// How fix-to-subscriber latency is read, shared by the daemon's run and the floor it is
/// compared with: a receiver stand-in (`DeliveryFeed`) writes a cycle of NMEA every 105 ms to
/// the program under measurement, which sends a location line to each of 100 Unix sockets
/// (locd, through its `nmea+unix-listen://` source; or, for `locbench daemon
/// --delivery-floor`, a bare process that relays each cycle as one line of locd's size). The
/// same reader reads both, and each line is timed from when its fix's bytes were written, so
/// both figures hold the wakeup of the program on the receiver's bytes, and what locd adds
/// (decoding, the engine, encoding, its loop) is the difference.
extension DaemonBenchmark {
  /// Reads every line arriving on `subscribers` for `seconds`, each stamped with the wall
  /// clock when its read returned. Reading must not delay the measurement: the sockets are
  /// waited on with epoll (poll(2) would scan all of them at every wait, a cost that grows
  /// with the subscribers and, at 1,000, was most of what the floor measured), and lines
  /// are parsed only after the run (parsing 100 events would push later arrivals back).
  static func collect(_ subscribers: [Subscriber], seconds: Double) -> [(arrival: Int64, line: [UInt8])] {
    var buffers = [[UInt8]](repeating: [], count: subscribers.count)
    var received: [(arrival: Int64, line: [UInt8])] = []
    received.reserveCapacity(100_000)
    guard var set = try? ReadinessSet() else { return [] }
    for (i, subscriber) in subscribers.enumerated() { try? set.add(subscriber.socket.rawValue, token: i) }
    let end = monotonicSeconds() + seconds
    var chunk = [UInt8](repeating: 0, count: 65536)
    while monotonicSeconds() < end {
      try? set.wait(milliseconds: 200) { i in
        let n = chunk.withUnsafeMutableBytes { raw in (try? subscribers[i].socket.read(into: raw)) ?? 0 }
        let arrival = wallMicroseconds()
        guard n > 0 else { return }
        buffers[i].append(contentsOf: chunk[0..<n])
        while let nl = buffers[i].firstIndex(of: 0x0A) {
          received.append((arrival, Array(buffers[i][..<nl])))
          buffers[i].removeSubrange(...nl)
        }
      }
    }
    return received
  }

  /// The issue's target for the p99 at this many subscribers (issue 27: 0.5 ms for 100,
  /// 3 ms for 1,000).
  static func target(subscribers count: Int) -> String {
    count <= 100 ? "target p99 <= 0.5 ms" : count <= 1000 ? "target p99 <= 3 ms" : "no target above 1,000"
  }

  /// Seconds the feed runs before lines count: the decoder learns which sentence ends a
  /// receiver's cycle (until then a fix waits for the next cycle), and the first fix
  /// regenerates the zone and the sun; the same for the floor, so both are timed alike.
  static let warmUpSeconds = 1.5
  /// Seconds of deliveries measured after the warm-up (about 76 fixes).
  static let measuredSeconds = 8.0

  /// Feeds `subscribers`' server through `feed`'s socket path, reads for the warm-up and the
  /// measured seconds, and prints the deliveries of the measured part.
  static func measure(
    _ subscribers: [Subscriber], feeding path: String, perFix: Bool, what: String, target: String
  ) {
    guard let feed = DeliveryFeed.start(to: path) else {
      print("\(what): no thread for the feed")
      return
    }
    let from = wallMicroseconds() + Int64(warmUpSeconds * 1_000_000)
    let received = collect(subscribers, seconds: warmUpSeconds + measuredSeconds)
    feed.stop()
    report(received, feed: feed, from: from, perFix: perFix, what: what, target: target)
  }

  /// Prints the deliveries' p50 and p99 (and, `perFix`, each fix's spread) under `what`: each
  /// line's arrival less the time its fix's bytes were written by `feed`, for the fixes
  /// written from `from` on.
  static func report(
    _ received: [(arrival: Int64, line: [UInt8])], feed: DeliveryFeed, from: Int64, perFix: Bool,
    what: String, target: String
  ) {
    var samples: [Double] = []
    // The slowest delivery of each fix, by when it was sent: 100 subscribers make one fix 1.3 %
    // of the samples, so the p99 is the slowest fix or two, and this says which.
    var worstOfFix: [Int64: Double] = [:]
    var allOfFix: [Int64: [Double]] = [:]
    for (arrival, line) in received {
      guard let json = try? JSON.parse(line), json["event"]?.string == "location",
        let time = json["data"]?["fix"]?["time"]?.string.flatMap({ Instant(iso8601: $0) }),
        let sent = feed.sentAt(fixTime: time), sent >= from
      else { continue }
      let sample = Double(arrival - sent)
      samples.append(sample)
      worstOfFix[sent] = max(worstOfFix[sent] ?? 0, sample)
      if perFix { allOfFix[sent, default: []].append(sample) }
    }
    guard !samples.isEmpty else {
      print("\(what): no samples")
      return
    }
    samples.sort()
    print(
      "\(what), \(samples.count) deliveries: p50 \(fmt(samples[samples.count / 2] / 1000)) ms, p99 \(fmt(samples[samples.count * 99 / 100] / 1000)) ms (\(target))"
    )
    let worst = worstOfFix.sorted { $0.key < $1.key }.map(\.value)
    if let first = worst.first {
      print(
        "  last subscriber reached, \(worst.count) fixes: median \(fmt(median(worst) / 1000)) ms, slowest \(fmt((worst.max() ?? 0) / 1000)) ms, first fix \(fmt(first / 1000)) ms"
      )
    }
    if perFix {
      for (i, (sent, deliveries)) in allOfFix.sorted(by: { $0.key < $1.key }).enumerated() {
        print(
          "  fix \(i) (\(deliveries.count) subscribers): last \(fmt((deliveries.max() ?? 0) / 1000)) ms, first \(fmt((deliveries.min() ?? 0) / 1000)) ms, median \(fmt(median(deliveries) / 1000)) ms, sent \(sent % 100_000_000)"
        )
      }
    }
  }

  /// The floor: this program again, as `--serve-floor PATH --feed-socket FEED`, in locd's
  /// place, fed by the same feed.
  static func deliveryFloor(subscribers count: Int, perFix: Bool) {
    guard let directory = try? FileIO.makeTemporaryDirectory(prefix: "/tmp/locbench-floor-") else {
      print("delivery floor: no temporary directory")
      return
    }
    let path = directory + "/floor.sock"
    let feedPath = directory + "/feed.sock"
    defer {
      try? FileIO.remove(path: path)
      try? FileIO.remove(path: feedPath)
      try? FileIO.removeDirectory(path: directory)
    }
    let writer = spawn(
      CommandLine.arguments[0],
      ["daemon", "--serve-floor", path, "--feed-socket", feedPath, "--subscribers", String(count)],
      environment: [])
    defer {
      try? Signals.send(Signals.terminate, to: writer)
      _ = try? ChildProcess.wait(writer)
    }
    var sockets: [Subscriber] = []
    let deadline = monotonicSeconds() + 5
    while sockets.count < count, monotonicSeconds() < deadline {
      if let socket = try? UnixSocket.connect(path: path) {
        sockets.append(Subscriber(socket: socket))
      } else {
        Clocks.sleep(microseconds: 10_000)
      }
    }
    guard sockets.count == count else {
      print("delivery floor: the writer did not listen")
      return
    }
    let floorNote = "a floor, no target: " + target(subscribers: count) + " is locd's"
    let what = "delivery floor (no daemon: one process relaying each cycle to \(count) Unix sockets)"
    measure(sockets, feeding: feedPath, perFix: perFix, what: what, target: floorNote)
  }

  /// The floor's relay: accepts `count` subscribers, then the feed's connection at
  /// `feedPath`, and for each RMC it reads (the cycle's last sentence, where locd's decoder
  /// sends its fix once it learned the cycle) writes one line of a location event's size,
  /// carrying the RMC's time as the fix's, to each subscriber in turn; until the feed or a
  /// reader goes. What it leaves out of locd's work is all of it but reading and writing.
  static func serveFloor(_ path: String, feed feedPath: String, subscribers count: Int) -> Int32 {
    guard let listener = try? UnixSocket.listen(path: path, mode: 0o600, gid: nil),
      let feedListener = try? UnixSocket.listen(path: feedPath, mode: 0o600, gid: nil)
    else { return 1 }
    var clients: [Subscriber] = []
    while clients.count < count {
      guard (try? listener.waitReadable(milliseconds: 5000)) == true else { return 1 }
      while let client = try? listener.accept() { clients.append(Subscriber(socket: client)) }
    }
    guard (try? feedListener.waitReadable(milliseconds: 10_000)) == true,
      let accepted = try? feedListener.accept()
    else { return 1 }
    let feed = Subscriber(socket: accepted)
    let padding = String(repeating: "x", count: 460)
    var pending: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while (try? feed.socket.waitReadable(milliseconds: -1)) != false {
      let outcome = chunk.withUnsafeMutableBytes { raw in try? feed.socket.readNonBlocking(into: raw) }
      switch outcome {
      case .bytes(let n)?: pending.append(contentsOf: chunk[0..<n])
      case .wouldBlock?: continue
      case .endOfFile?, nil: return 0
      }
      while let nl = pending.firstIndex(of: 0x0A) {
        let sentence = Array(pending[..<nl])
        pending.removeSubrange(...nl)
        guard let time = rmcTime(sentence) else { continue }
        let line = Array(
          (#"{"type":"event","event":"location","time":""# + time + #"","data":{"fix":{"time":""# + time
            + #"","pad":""# + padding + "\"}}}\n").utf8)
        for client in clients {
          var offset = 0
          while offset < line.count {
            // A send takes what the socket has room for (nothing now: nil, tried again); an
            // error is the reader gone.
            do { offset += try client.socket.send(line, from: offset) ?? 0 } catch { return 0 }
          }
        }
      }
    }
    return 0
  }

  /// An RMC's time and date as ISO-8601 with milliseconds (decoded by locd's NMEA parser),
  /// or nil for any other sentence.
  static func rmcTime(_ sentence: [UInt8]) -> String? {
    let line = sentence.last == 0x0D ? sentence.dropLast() : sentence[...]
    guard case .sentence(let decoded) = line.withUnsafeBytes({ NMEASentence.parse($0, satellites: false) }),
      case .rmc(let rmc) = decoded.content, let time = rmc.time, let date = rmc.date
    else { return nil }
    return time.instant(on: date).iso8601(fractionDigits: 3)
  }
}
