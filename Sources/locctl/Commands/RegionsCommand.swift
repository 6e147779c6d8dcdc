import LocCore
import LocHost
import LocProtocol

/// `locctl regions APP add|remove|state|watch|visits ...`: acts as app APP to try region
/// monitoring and visits from a shell (docs/REGIONS.md). Regions stay registered after
/// locctl exits (they are the app's, kept in apps.json); `watch` and `visits` print the
/// events the app is given while it is connected.
enum RegionsCommand {
  static let subcommands = ["add", "remove", "state", "watch", "visits"]

  static let spec = CommandSpec(
    name: "regions",
    summary: "act as an app: register regions, show their states, print region and visit events",
    usage: [
      "regions APP add ID LAT,LON RADIUS [--notify entry,exit,dwell] [--dwell DURATION] [--json]",
      "regions APP add ID LAT LON RADIUS [...]",
      "regions APP remove ID", "regions APP state [ID] [--json]",
      "regions APP watch|visits [--background] [--count N] [--timeout DURATION] [--json]",
    ],
    options: [
      .valued("notify", "LIST", "add: the events wanted, of entry, exit, dwell (default entry,exit)"),
      .valued("dwell", "DURATION", "add: the dwell time, with dwell in --notify (e.g. 5m)"),
      .flag("background", "watch, visits: do not say the app is in the foreground"),
      .valued("count", "N", "watch, visits: stop after N events"),
      .valued("timeout", "DURATION", "watch, visits: give up after this long (default: never)"),
    ],
    arguments: [.live(.appIDs), .words(subcommands), .none],
    help: """
      Talks to locd as app APP (it needs an authorization with precise accuracy: locctl apps
      grant). add registers a circular region (radius 10 m to 100 km; the centre in any form of
      COORDINATES in locctl(1), one word or two) and prints it; remove
      unregisters it; state prints the app's regions and their states now (unknown, inside,
      outside). The regions stay after locctl exits, like an app's. watch stays connected and
      prints the app's region events (the ones that waited while it was away first, if it has
      always); visits starts visit monitoring and prints arrivals and departures, and stops it
      when it exits. Events follow the app's authorization: with when-in-use only while in
      the foreground (--background says otherwise). See REGIONS.md.
      """,
    examples: [
      "locctl regions org.example.Fences add home 59.9139,10.7522 150 --notify entry,exit,dwell --dwell 5m",
      "locctl regions org.example.Fences state", "locctl regions org.example.Fences watch --count 2",
    ],
    needsDaemon: true, run: run)

  static func run(_ invocation: Invocation) throws(UsageError) -> Int32 {
    let words = invocation.positionals
    guard words.count >= 2 else {
      throw UsageError("expected: regions APP add|remove|state|watch|visits ...")
    }
    let (app, sub, rest) = (words[0], words[1], Array(words.dropFirst(2)))
    guard subcommands.contains(sub) else {
      throw UsageError("unknown subcommand '\(sub)'" + Suggestion.hint(for: sub, among: subcommands))
    }
    let request = try parse(sub, rest, invocation)
    do {
      let client = try ControlClient(path: invocation.socketPath, client: "locctl", app: app)
      guard client.hello?.app != nil else {
        printError("locctl regions: locd did not take this session as an app's")
        return ExitStatus.failure
      }
      switch request {
      case .add(let region): show(try client.call(.registerRegion(region)), json: invocation.json)
      case .remove(let id): _ = try client.call(.unregisterRegion(id))
      case .state(let id): show(try client.call(.regionState(id)), json: invocation.json)
      case .follow(let visits, let count, let timeout):
        return try follow(client, visits: visits, count: count, timeout: timeout, invocation)
      }
      return ExitStatus.ok
    } catch {
      Output.flush()
      printError("locctl regions: \(error)")
      return ExitStatus.of(error)
    }
  }

  enum Action {
    case add(CircularRegion), remove(RegionID), state(RegionID?)
    case follow(visits: Bool, count: Int, timeout: Duration)
  }

  static func parse(_ sub: String, _ rest: [String], _ invocation: Invocation) throws(UsageError) -> Action {
    func id(_ text: String) throws(UsageError) -> RegionID {
      do throws(RegionError) { return try RegionID(text) } catch { throw UsageError("region id: \(error)") }
    }
    switch sub {
    case "add":
      let shape = "regions APP add: expected ID LAT,LON RADIUS or ID LAT LON RADIUS"
      guard rest.count >= 3 else { throw UsageError(shape) }
      // The centre is one word or two (`CoordinateText.read`), the radius the word after it.
      let centre: Coordinate
      let words: Int
      do throws(CoordinateText.Problem) { (centre, words) = try read(rest) } catch {
        throw UsageError("regions APP add: \(error)")
      }
      guard rest.count == 2 + words else { throw UsageError(shape) }
      let radiusText = rest[1 + words]
      guard let radius = Double(radiusText), radius.isFinite else {
        throw UsageError("regions APP add: radius '\(radiusText)' is not a number of metres")
      }
      let notify = Set((invocation.value("notify") ?? "entry,exit").split(separator: ",").map(String.init))
      for word in notify where !["entry", "exit", "dwell"].contains(word) {
        throw UsageError("--notify '\(word)': expected entry, exit, dwell")
      }
      let dwell = try invocation.duration("dwell", in: .seconds(1)...(.seconds(86_400)))
      guard notify.contains("dwell") == (dwell != nil) else {
        throw UsageError("--notify dwell and --dwell DURATION go together")
      }
      do throws(RegionError) {
        return .add(
          try CircularRegion(
            id: try RegionID(rest[0]), centre: centre, radius: Meters(radius),
            notifyOnEntry: notify.contains("entry"),
            notifyOnExit: notify.contains("exit"), dwell: dwell))
      } catch {
        throw UsageError("regions APP add: \(error)")
      }
    case "remove":
      guard rest.count == 1 else { throw UsageError("regions APP remove: expected one region id") }
      return .remove(try id(rest[0]))
    case "state":
      guard rest.count <= 1 else { throw UsageError("regions APP state: expected at most one region id") }
      return .state(try rest.first.map(id))
    default:
      guard rest.isEmpty else { throw UsageError("regions APP \(sub): takes no more arguments") }
      var count = Int.max
      if let text = invocation.value("count") {
        guard let n = Int(text), n > 0 else {
          throw UsageError("--count '\(text)': expected a count, 1 or more")
        }
        count = n
      }
      let timeout = try invocation.duration("timeout", in: .milliseconds(1)...WaitCommand.forever)
      return .follow(visits: sub == "visits", count: count, timeout: timeout ?? WaitCommand.forever)
    }
  }

  /// The centre of `add ID CENTRE RADIUS`, from `rest[1]` (and `rest[2]` when that holds only a
  /// latitude), and how many words it took.
  static func read(_ rest: [String]) throws(CoordinateText.Problem) -> (Coordinate, Int) {
    let read = try CoordinateText.read(rest, from: 1)
    return (read.reading.coordinate, read.words)
  }

  /// Prints the events of the app until `count` of them came, or the deadline.
  static func follow(
    _ client: ControlClient, visits: Bool, count: Int, timeout: Duration, _ invocation: Invocation
  ) throws(ControlClient.Failure) -> Int32 {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    let zone = invocation.json ? ScreenZone("UTC") : ScreenZone.inEffect(socketPath: invocation.socketPath)
    if !invocation.flag("background") { _ = try client.call(.setActivity(.foreground)) }
    if visits {
      _ = try client.call(.monitorVisits(true))
    } else {
      _ = try client.call(.subscribe([.region]))
    }
    defer { if visits { _ = try? client.call(.monitorVisits(false)) } }
    var got = 0
    while got < count {
      let left = deadline - ContinuousClock.now
      guard left > .zero else {
        printError("locctl regions: timed out after \(got) event(s)")
        return ExitStatus.failure
      }
      let event = try client.nextEvent(timeout: left)
      switch event.data {
      case .region, .visit:
        got += 1
        Output.line(
          invocation.json ? ServerMessage.event(event).line : WatchCommand.render(event, zone: zone))
        Output.flush()
      default: continue
      }
    }
    return ExitStatus.ok
  }

  static func show(_ result: RegionsResult, json: Bool) {
    if json {
      Output.line(result.json.serialized)
    } else {
      for r in result.regions {
        var t =
          "\(r.id): \(r.state.word), \(r.centre.latitude.value),\(r.centre.longitude.value) r \(Numbers.fixed(r.radius.value, 0)) m, "
        t += r.notify.joined(separator: ",")
        if let d = r.dwell { t += " (dwell \(TimeFormat.duration(d)))" }
        Output.line(t)
      }
    }
    Output.flush()
  }
}
