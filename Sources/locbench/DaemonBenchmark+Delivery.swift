import LocCore
import LocSystem

/// How fix-to-subscriber latency is read, shared by the daemon's run and the floor it is
/// compared with: `locbench daemon --delivery-floor` puts a bare process in locd's place,
/// one that writes an event line of locd's size to each of 100 Unix sockets in turn at
/// the rate of the replayed log, stamped with the time before its first write. The same
/// reader reads both, so what locd adds is the difference, and the floor is what this
/// machine's kernel, scheduler and reader cost without any daemon.
extension DaemonBenchmark {
  /// Reads every line arriving on `sockets` for `seconds`, each stamped with the wall clock
  /// when its read returned. Reading must not delay the measurement: lines are parsed only
  /// after the run (parsing 100 events would otherwise push later arrivals back).
  static func collect(_ subscribers: [Subscriber], seconds: Double) -> [(arrival: Int64, line: [UInt8])] {
    let sockets = subscribers.map { $0.socket.rawValue }
    var buffers = [[UInt8]](repeating: [], count: sockets.count)
    var received: [(arrival: Int64, line: [UInt8])] = []
    received.reserveCapacity(20_000)
    let end = monotonicSeconds() + seconds
    var chunk = [UInt8](repeating: 0, count: 65536)
    while monotonicSeconds() < end {
      let ready = (try? FileDescriptor.waitReadable(sockets, milliseconds: 200)) ?? []
      for i in ready {
        let n = chunk.withUnsafeMutableBytes { raw in (try? subscribers[i].socket.read(into: raw)) ?? 0 }
        let arrival = wallMicroseconds()
        guard n > 0 else { continue }
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

  /// Prints the deliveries' p50 and p99 (and, `perFix`, each fix's spread) under `what`.
  static func report(
    _ received: [(arrival: Int64, line: [UInt8])], perFix: Bool, what: String, target: String
  ) {
    var samples: [Double] = []
    // The slowest delivery of each fix, by the fix's time: 100 subscribers make one fix 1.3 %
    // of the samples, so the p99 is the slowest fix or two, and this says which.
    var worstOfFix: [Int64: Double] = [:]
    var allOfFix: [Int64: [Double]] = [:]
    for (arrival, line) in received {
      guard let json = try? JSON.parse(line), json["event"]?.string == "location",
        json["data"]?["fix"]?.isNull == false, let t = json["time"]?.string.flatMap({ Instant(iso8601: $0) })
      else { continue }
      let sample = Double(arrival - t.microsecondsSinceEpoch)
      samples.append(sample)
      worstOfFix[t.microsecondsSinceEpoch] = max(worstOfFix[t.microsecondsSinceEpoch] ?? 0, sample)
      if perFix { allOfFix[t.microsecondsSinceEpoch, default: []].append(sample) }
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
      for (i, (time, deliveries)) in allOfFix.sorted(by: { $0.key < $1.key }).enumerated() {
        print(
          "  fix \(i) (\(deliveries.count) subscribers): last \(fmt((deliveries.max() ?? 0) / 1000)) ms, first \(fmt((deliveries.min() ?? 0) / 1000)) ms, median \(fmt(median(deliveries) / 1000)) ms, time \(time % 100_000_000)"
        )
      }
    }
  }

  /// The floor: this program again, as `--serve-floor PATH`, in locd's place.
  static func deliveryFloor(subscribers count: Int, perFix: Bool) {
    guard let directory = try? FileIO.makeTemporaryDirectory(prefix: "/tmp/locbench-floor-") else {
      print("delivery floor: no temporary directory")
      return
    }
    let path = directory + "/floor.sock"
    defer {
      try? FileIO.remove(path: path)
      try? FileIO.removeDirectory(path: directory)
    }
    let writer = spawn(
      CommandLine.arguments[0], ["daemon", "--serve-floor", path, "--subscribers", String(count)],
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
    let received = collect(sockets, seconds: 8)
    sockets.removeAll()
    let floorNote = "a floor, no target: " + target(subscribers: count) + " is locd's"
    let what = "delivery floor (no daemon: one process writing each line to \(count) Unix sockets)"
    report(received, perFix: perFix, what: what, target: floorNote)
  }

  /// The floor's writer: accepts `count` connections, then every 105 ms (the replayed
  /// log's rate, about 9.5 a second) writes one line of a location event's size to each,
  /// in turn, stamped with the time it was due; until the readers close.
  static func serveFloor(_ path: String, subscribers count: Int) -> Int32 {
    guard let listener = try? UnixSocket.listen(path: path, mode: 0o600, gid: nil) else { return 1 }
    var clients: [Subscriber] = []
    while clients.count < count {
      guard (try? listener.waitReadable(milliseconds: 5000)) == true else { return 1 }
      while let client = try? listener.accept() { clients.append(Subscriber(socket: client)) }
    }
    let padding = String(repeating: "x", count: 380)
    // Each line carries the time it was due, not the time the writer woke: locd's replay
    // stamps a fix with its due time too, so both figures hold the writer's own wakeup.
    let wallStart = wallMicroseconds()
    let monotonicStart = Clocks.microseconds(.monotonic)
    var tick: Int64 = 0
    while true {
      tick += 1
      let due = tick * 105_000
      Clocks.sleep(microseconds: max(0, monotonicStart + due - Clocks.microseconds(.monotonic)))
      let now = Instant(microsecondsSinceEpoch: wallStart + due)
      let line = Array(
        (#"{"type":"event","event":"location","time":""# + now.iso8601(fractionDigits: 6)
          + #"","data":{"fix":{"pad":""# + padding + "\"}}}\n").utf8)
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
}
