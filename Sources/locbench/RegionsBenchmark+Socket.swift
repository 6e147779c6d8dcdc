import LocCore
import LocProtocol
import LocSystem

/// `locbench regions --socket [--registrations N] [--window W] [--locd PATH]`: one app
/// registers N regions (default 10,000) over the socket of the built locd, W requests in
/// flight (default 64), each answered only once it is on disk (decision 0061). Prints the
/// registrations acknowledged a second and the writes of the app's file: renames into the
/// state directory's apps/ seen by inotify while the registrations were answered, and 6 s
/// later (an earlier locd gathered registrations for 5 s), so the same count works for any
/// locd; and `daemon.stateFiles.writes` where the daemon has it. For before and after, run
/// it with `--locd` pointing at each build.
extension RegionsBenchmark {
  static func socket(_ arguments: [String]) -> Int32 {
    guard
      let options = try? CommandLineOptions(
        arguments, valued: ["registrations", "window", "locd"], flagNames: ["socket"]),
      let count = Int(options.value("registrations") ?? "10000"), count > 0,
      let window = Int(options.value("window") ?? "64"), window > 0
    else {
      print("usage: locbench regions --socket [--registrations N] [--window W] [--locd PATH]")
      return 2
    }
    let locd = options.value("locd") ?? ".build/release/locd"
    guard FileIO.isExecutable(path: locd) else {
      print("regions: \(locd) not built (swift build -c release)")
      return 1
    }
    let configured = DaemonRun(
      locd: locd, extraArguments: ["--source", "replay:/dev/null"], watchdogUSec: nil)
    // The limits (10,000 regions an app by default) made room for `count`.
    let limit = max(count, RegionsSettings().maxRegionsPerApp)
    configured.configPath = configured.directory + "/locd.conf"
    try? FileIO.write(
      path: configured.configPath,
      Array("[Regions]\nMaxRegionsPerApp=\(limit)\nMaxRegionsPerUser=\(limit)\n".utf8))
    configured.start()
    guard configured.waitFor("READY=1", timeout: 5) else {
      print("regions: no READY=1 within 5 s")
      configured.stop()
      return 1
    }
    defer { configured.stop() }
    let app = "org.example.Bench"
    do {
      let admin = try ControlClient(path: configured.socket, client: "locbench")
      _ = try admin.call(.changeApp(AppID(app)!, uid: CurrentProcess.userID, .grant(.always, .full)))
      let writes = try AppsDirectoryWrites(configured.directory + "/state/apps")
      let pipe = try RequestPipe(path: configured.socket, app: app)
      var rng = Generator(seed: 70)
      let layout = layouts[1]
      let regions = (0..<count).map { k in makeRegion(k, layout, &rng).1 }
      let t0 = monotonicSeconds()
      let refused = try pipe.send(regions.map { WireRequest.request(.registerRegion($0)) }, window: window)
      let seconds = monotonicSeconds() - t0
      let during = writes.count()
      Clocks.sleep(microseconds: 6_000_000)
      let later = writes.count()
      let status = try admin.call(.status)
      let counted =
        status.daemon.stateFiles.first { $0.name == "writes" }.map {
          " (status: \($0.value) files written since start)"
        } ?? ""
      print("regions over the socket: \(count) registrations by one app, \(window) in flight, \(locd)")
      print(
        "register_socket_s \(fmt(seconds)) (\(fmt(Double(count) / seconds)) registrations/s; \(refused) refused)"
      )
      print("apps_file_writes \(during) while answering, \(later) 6 s later\(counted)")
      print("regions_monitored \(status.regions?.regions ?? 0)")
    } catch {
      print("regions: \(error)")
      return 1
    }
    return 0
  }
}

/// Requests sent over a raw connection, `window` of them unanswered at a time: what a client
/// that pipelines sees (ControlClient waits for each answer). A thread of its own writes, so
/// reading the answers never waits for a write (locd stops reading a client that does not
/// read its answers, and a client blocked writing would never read them).
final class RequestPipe {
  let socket: FileDescriptor
  let path: String
  private var buffer: [UInt8] = []

  /// Connects, reads the greeting and says hello as `app`.
  init(path: String, app: String) throws {
    self.path = path
    socket = try UnixSocket.connect(path: path)
    _ = try ControlClient.read(socket, &buffer, path: path, timeout: .seconds(10))
    try socket.writeAll(Array((Call<HelloResult>.hello(app: app).request.line(id: .number(0)) + "\n").utf8))
    _ = try ControlClient.read(socket, &buffer, path: path, timeout: .seconds(10))
  }

  /// Sends every request, keeping at most `window` unanswered; returns once all are
  /// answered, with how many were answered with an error.
  func send(_ requests: [WireRequest], window: Int) throws -> Int {
    let room = Semaphore()
    for _ in 0..<window { room.signal() }
    let lines = requests.enumerated().map { Array(($1.line(id: .number(Int64($0 + 1))) + "\n").utf8) }
    let number = socket.rawValue
    _ = DetachedThread.start {
      for line in lines {
        room.wait()
        let written = line.withUnsafeBytes { raw in
          Result { () throws(Errno) in try FileDescriptor.writeAll(raw, to: number) }
        }
        if case .failure = written { return }
      }
    }
    var answered = 0
    var refused = 0
    while answered < requests.count {
      switch try ControlClient.read(socket, &buffer, path: path, timeout: .seconds(60)) {
      case .reply: answered += 1
      case .error:
        answered += 1
        refused += 1
      default: continue
      }
      room.signal()
    }
    return refused
  }
}

/// Counts the files renamed into a directory (inotify IN_MOVED_TO): each atomic write of a
/// state file ends in one. The creation of each temporary name is watched too: inotify merges
/// an event into an unread one just like it, and a rename's cookie does not count
/// (inotify(7)), so renames of one name in a row would read as one.
final class AppsDirectoryWrites {
  let inotify: FileDescriptor
  private var seen = 0

  init(_ directory: String) throws {
    inotify = try Inotify.open()
    try Inotify.watch(directory, events: Inotify.movedTo | Inotify.create, on: inotify)
  }

  /// The renames so far.
  func count() -> Int {
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = buffer.withUnsafeMutableBytes { raw in (try? inotify.read(into: raw)) ?? 0 }
      guard n > 0 else { break }
      // struct inotify_event (inotify(7)): wd, mask, cookie, len (4 bytes each), then len
      // bytes of name.
      var offset = 0
      while offset + 16 <= n {
        let length = Int(buffer[offset + 12]) | Int(buffer[offset + 13]) << 8 | Int(buffer[offset + 14]) << 16
        let mask =
          UInt32(buffer[offset + 4]) | UInt32(buffer[offset + 5]) << 8 | UInt32(buffer[offset + 6]) << 16
        if mask & Inotify.movedTo != 0 { seen += 1 }
        offset += 16 + length
      }
    }
    return seen
  }
}
