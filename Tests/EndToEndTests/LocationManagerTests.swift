import Foundation
import Glibc
import LocCore
import LocProtocol
import LocationManager
import Testing

/// locd started from a thread of its own that lives until `release()`. LocdProcess starts
/// locd with `setpriv --pdeathsig KILL`, which the kernel sends when the *thread* that
/// spawned it ends; an async test resumes on whichever pool thread after an await, and the
/// one it started on may be retired meanwhile (seen under make test's load: locd killed
/// mid-test).
final class DaemonThread: @unchecked Sendable {
  let daemon: LocdProcess
  private let released = DispatchSemaphore(value: 0)

  init(arguments: [String] = [], environment: [String: String] = [:], config: String? = nil) throws {
    let started = DispatchSemaphore(value: 0)
    final class Box: @unchecked Sendable { var made: Result<LocdProcess, Error>? }
    let box = Box()
    let released = self.released
    Thread {
      box.made = Result { try LocdProcess(arguments: arguments, environment: environment, config: config) }
      started.signal()
      released.wait()
    }.start()
    started.wait()
    daemon = try box.made!.get()
  }

  /// Lets the thread end (after the daemon is stopped).
  func release() {
    daemon.stop()
    released.signal()
  }
}

/// The LocationManager library in this process against the real locd and a real `locctl
/// agent --policy` and NMEA fixes over UDP: the decision arrives as an event and updates
/// `authorizationStatus`, updates honour the distance filter, a refusal carries locd's code, a daemon that stops
/// answering costs a timeout, and closing finishes the events.
@Suite(.serialized) struct LocationManagerTests {
  /// locd with an NMEA source on UDP `port` and an agent of this uid answering with `rules`.
  static func daemonWithAgent(_ rules: String, port: Int) throws -> (DaemonThread, Child) {
    let owner = try DaemonThread(arguments: ["--source", "nmea+udp://127.0.0.1:\(port)"])
    let daemon = owner.daemon
    return (owner, try daemon.policyAgent(rules))
  }

  /// The next event that `pick` takes, skipping others; fails after `seconds`.
  static func next<T: Sendable>(
    _ events: inout AsyncStream<LocationManagerEvent>.Iterator, within seconds: Int = 10,
    _ pick: (LocationManagerEvent) -> T?
  ) async throws -> T {
    let deadline = ContinuousClock.now.advanced(by: .seconds(seconds))
    while ContinuousClock.now < deadline {
      guard let event = await events.next() else { throw HarnessError("the events ended") }
      if let picked = pick(event) { return picked }
    }
    throw HarnessError("no such event within \(seconds) s")
  }

  @Test func theDecisionArrivesAsAnEventAndUpdatesFollowTheDistanceFilter() async throws {
    // On a thread of its own: under load the cooperative pool's threads can all be held by
    // blocking tests, and this one must act while the daemon is at a given point.
    try await withTaskExecutorPreference(ThreadExecutor()) {
      let port = freePort(datagram: true)
      let (owner, agent) = try Self.daemonWithAgent("org.example.Maps allow-while-using\n", port: port)
      let daemon = owner.daemon
      defer {
        kill(agent.pid, SIGTERM)
        agent.wait()
        owner.release()
      }
      // Receiver cycles a second apart, each `index` × 10 m north of 59.9 N 10.7 E (SourcePeers),
      // dated in the last seconds and each after the one before.
      var last = Date().timeIntervalSince1970.rounded(.down) - 3
      func send(_ index: Int) throws {
        last = max(last + 1, Date().timeIntervalSince1970.rounded(.down) - 8)
        try sendDatagram(
          "127.0.0.1", port, Array(epoch(at: Date(timeIntervalSince1970: last), index: index).utf8))
      }
      // Two cycles at the start point: the second completes the first.
      try send(0)
      try send(0)
      _ = try daemon.waitForStatus { $0.position.tier == .fix }
      let manager = try await LocationManager(app: "org.example.Maps", socketPath: daemon.socketPath)
      var events = manager.events.makeAsyncIterator()
      #expect(manager.authorizationStatus == .notDetermined)
      try await manager.setActivity(.foreground)
      #expect(manager.activity == .foreground)
      let asked = try await manager.requestWhenInUseAuthorization(purpose: "maps")
      // Not decided in the reply (the agent is asked); decided by the event that follows.
      #expect(asked.status == .known(.notDetermined) && asked.prompt == .known(.asking))
      let decided = try await Self.next(&events) { e -> AppStatusView? in
        if case .authorization(let a) = e, a.status != .known(.notDetermined) { return a }
        return nil
      }
      #expect(decided.status == .known(.whenInUse) && decided.decidedBy == "agent")
      #expect(manager.authorizationStatus == .whenInUse && manager.accuracyAuthorization == .full)
      let here = try #require(try await manager.requestLocation(timeout: .zero))
      let origin = try #require(Coordinate(lat: 59.9, lon: 10.7))
      // The fix, fresh or (on a loaded machine, after 10 s) the last known one.
      #expect(here.tier != .manual && here.coordinate.distance(to: origin).value < 1, "\(here)")
      // Updates with a 25 m filter: the current position at once; then of the cycles 10 m
      // apart, only those 30 m and 60 m north (each 25 m or more from the last delivered).
      manager.distanceFilter = Meters(25)
      try await manager.startUpdatingLocation()
      let location = { (e: LocationManagerEvent) -> Location? in
        if case .location(let l) = e { return l } else { return nil }
      }
      var first = try await Self.next(&events, location)
      if first.tier != .fix {
        // A loaded machine took over 10 s to get here: the position given is the last known
        // one, and a fix (another tier) is news whatever its distance. One more at the start.
        try send(0)
        first = try await Self.next(&events, location)
      }
      #expect(first.tier == .fix && first.coordinate.distance(to: origin).value < 1, "\(first)")
      for index in 1...7 {
        try send(index)
        usleep(30_000)
      }
      var north: [Double] = []
      while (north.last ?? 0) < 55 {
        north.append(try await Self.next(&events, location).coordinate.distance(to: origin).value)
      }
      #expect(north.count == 2 && abs(north[0] - 30) < 1 && abs(north[1] - 60) < 1, "\(north)")
      #expect(manager.location?.coordinate.distance(to: origin).value == north.last)
      try await manager.stopUpdatingLocation()
      manager.close()
      // Closing ends the events: the end of the connection, then nothing.
      let end = try await Self.next(&events) { e -> ControlClient.Failure? in
        if case .error(let f) = e { return f } else { return nil }
      }
      #expect("\(end)".contains("closed"))
      #expect(await events.next() == nil)
    }
  }

  @Test func refusalsCarryTheirCodeAndASilentDaemonTimesOut() async throws {
    // On a thread of its own: under load the cooperative pool's threads can all be held by
    // blocking tests, and this one must act while the daemon is at a given point.
    try await withTaskExecutorPreference(ThreadExecutor()) {
      let owner = try DaemonThread()
      defer { owner.release() }
      let daemon = owner.daemon
      #expect(try daemon.locctl(["set-location", "59.9139", "10.7522"]).status == 0)
      // Not authorized: locate is refused with the reason.
      let manager = try await LocationManager(
        app: "org.example.Nosy", socketPath: daemon.socketPath, timeout: .seconds(4))
      do {
        _ = try await manager.requestLocation(timeout: .zero)
        Issue.record("an app that is not authorized got a location")
      } catch {
        guard case .daemon(let reply)? = error as? ControlClient.Failure else { throw error }
        #expect(reply.code == .known(.notAuthorized), "\(reply)")
      }
      // A bad app id is refused at hello.
      do {
        _ = try await LocationManager(app: "not an id!", socketPath: daemon.socketPath)
        Issue.record("a bad app id was taken")
      } catch {
        guard case .daemon(let reply)? = error as? ControlClient.Failure else { throw error }
        #expect(reply.code == .known(.invalidParams))
      }
      // A daemon that stops answering (SIGSTOP): the call gives up after the timeout.
      kill(daemon.pid, SIGSTOP)
      defer { kill(daemon.pid, SIGCONT) }
      let started = ContinuousClock.now
      do {
        try await manager.setActivity(.foreground)
        Issue.record("a stopped daemon answered")
      } catch {
        guard case .timedOut? = error as? ControlClient.Failure else { throw error }
      }
      #expect(ContinuousClock.now - started >= .seconds(4))
      kill(daemon.pid, SIGCONT)
      // Served again once it runs: the late reply is dropped, the next call answered.
      #expect(try await manager.setActivity(.foreground).inUse)
    }
  }

  @Test func aCallAfterLocdDiedIsAnErrorNotASignal() async throws {
    // An app's request written to a socket whose locd is gone is EPIPE; written with
    // write(2) it was SIGPIPE, which ended the app (here: the test process) before any error.
    try await withTaskExecutorPreference(ThreadExecutor()) {
      let owner = try DaemonThread()
      defer { owner.release() }
      let daemon = owner.daemon
      let manager = try await LocationManager(
        app: "org.example.Orphan", socketPath: daemon.socketPath, timeout: .seconds(4))
      daemon.stop(signal: SIGKILL)
      do {
        try await manager.setActivity(.foreground)
        Issue.record("a locd killed with SIGKILL answered")
      } catch {
        guard case .protocolError? = error as? ControlClient.Failure else { throw error }
      }
    }
  }

  /// allowsBackgroundLocationUpdates: updates started in use with it keep the app in use
  /// after it goes to the background (InUseGrace=0s here); without it the app is not.
  @Test func backgroundUpdatesKeepTheAppInUse() async throws {
    // On a thread of its own: under load the cooperative pool's threads can all be held by
    // blocking tests, and this one must act while the daemon is at a given point.
    try await withTaskExecutorPreference(ThreadExecutor()) {
      let owner = try DaemonThread(config: "[Apps]\nInUseGrace=0s\n")
      defer { owner.release() }
      let daemon = owner.daemon
      #expect(try daemon.locctl(["set-location", "59.9139", "10.7522"]).status == 0)
      for app in ["org.example.Tracker", "org.example.Weather"] {
        #expect(try daemon.locctl(["apps", "grant", app, "--user", "\(getuid())"]).status == 0)
      }
      let tracker = try await LocationManager(app: "org.example.Tracker", socketPath: daemon.socketPath)
      let weather = try await LocationManager(app: "org.example.Weather", socketPath: daemon.socketPath)
      tracker.allowsBackgroundLocationUpdates = true
      for manager in [tracker, weather] {
        #expect(try await manager.setActivity(.foreground).inUse)
        #expect(manager.authorizationStatus == .whenInUse)
        try await manager.startUpdatingLocation()
      }
      #expect(try await tracker.setActivity(.background).inUse)
      #expect(try await weather.setActivity(.background).inUse == false)
      let using = try daemon.status().apps?.using.map(\.app) ?? []
      #expect(using == ["org.example.Tracker"], "\(using)")
    }
  }
}
