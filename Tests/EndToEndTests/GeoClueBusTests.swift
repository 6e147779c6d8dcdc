import Foundation
import FoundationXML
import Glibc
import LocCore
import LocProtocol
import Testing

/// The members of one interface in D-Bus introspection XML, one normalised line each:
/// `method NAME(in T name, out T name)`, `signal NAME(T name)`, `property NAME T ACCESS`.
/// Annotations and documentation are left out: they are not what a client calls.
final class InterfaceMembers: NSObject, XMLParserDelegate {
  let interface: String
  private var inside = false
  private var member: (kind: String, name: String, args: [String])?
  private(set) var lines: [String] = []

  /// The members of `interface` in `xml`.
  static func of(_ interface: String, in xml: String) -> [String] {
    let reader = InterfaceMembers(interface: interface)
    let parser = XMLParser(data: Data(xml.utf8))
    parser.delegate = reader
    _ = parser.parse()
    return reader.lines.sorted()
  }

  init(interface: String) { self.interface = interface }

  func parser(
    _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
    attributes: [String: String] = [:]
  ) {
    let name = attributes["name"] ?? "?"
    switch element {
    case "interface": inside = name == interface
    case "method" where inside, "signal" where inside: member = (element, name, [])
    case "arg" where inside:
      let direction = attributes["direction"].map { $0 + " " } ?? (member?.kind == "method" ? "in " : "")
      member?.args.append("\(direction)\(attributes["type"] ?? "?") \(name)")
    case "property" where inside:
      lines.append("property \(name) \(attributes["type"] ?? "?") \(attributes["access"] ?? "?")")
    default: break
    }
  }

  func parser(
    _ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?
  ) {
    if element == "interface" { inside = false }
    if (element == "method" || element == "signal"), let m = member {
      lines.append("\(m.kind) \(m.name)(\(m.args.joined(separator: ", ")))")
      member = nil
    }
  }
}

/// locd's GeoClue2 face on a private bus configured like the system bus, with the shipped
/// policy file installed, against the programs that use GeoClue: its interface XML, its demo
/// programs, gammastep, redshift, and agents. Expectations come from GeoClue's interface XML
/// and from the replayed position (59.9139 N, 10.7522 E), never from locd's own output.
@Suite(.serialized) struct GeoClueBusTests {
  static let policy = Binaries.packageRoot.path + "/dbus/org.freedesktop.GeoClue2.locd.conf"

  /// A bus with locd's policy and locd on it.
  func rig() throws -> (PrivateSystemBus, LocdProcess) {
    let bus = try PrivateSystemBus(policies: [Self.policy])
    return (bus, try startGeoClueLocd(on: bus))
  }

  /// The locd test agent (Tests/Peers/geoclue-agent.py) registered with `max` and `answer`.
  func agent(_ max: Int, _ answer: String, on bus: PrivateSystemBus) throws -> LinePeer {
    let peer = try LinePeer(
      GeoCluePrograms.peer("geoclue-agent.py"), [String(max), answer], environment: bus.environment,
      output: bus.directory + "/agent-\(max)-\(answer).out")
    guard peer.waitFor("ready") else { throw HarnessError("the agent did not register: \(peer.text)") }
    return peer
  }

  @Test(
    .enabled(if: GeoCluePrograms.busInstalled, "needs dbus-daemon, busctl, python3-dbus and python3-gi"),
    .enabled(if: GeoCluePrograms.xmlInstalled, "needs GeoClue's interface XML (libgeoclue-2-dev)"))
  func introspectionMatchesGeoCluesInterfaceXMLMemberForMember() throws {
    let (bus, locd) = try rig()
    let agent = try agent(8, "yes", on: bus)
    defer { agent.stop() }
    // A client that started and got a location, so all three kinds of object exist.
    let holder = try LinePeer(
      GeoCluePrograms.peer("geoclue-probe.py"), ["hold", "introspected"], environment: bus.environment,
      output: bus.directory + "/hold.out")
    defer { holder.stop() }
    #expect(holder.waitFor("\"location\""), "\(holder.text)\n\(locd.log)")
    var paths: [String: String] = ["Manager": "/org/freedesktop/GeoClue2/Manager"]
    for line in holder.text.split(separator: "\n") {
      guard let json = try? JSON.parse(String(line)) else { continue }
      if let p = json["client"]?.string { paths["Client"] = p }
      if let p = json["location"]?.string { paths["Location"] = p }
    }
    for kind in ["Manager", "Client", "Location"] {
      let path = try #require(paths[kind], "no \(kind) object: \(holder.text)")
      let interface = "org.freedesktop.GeoClue2.\(kind)"
      let reference = InterfaceMembers.of(
        interface,
        in: try String(contentsOfFile: "\(GeoCluePrograms.interfaces)/\(interface).xml", encoding: .utf8))
      #expect(!reference.isEmpty)
      let r = try bus.busctl(["introspect", "--xml-interface", "org.freedesktop.GeoClue2", path])
      #expect(r.status == 0, "\(r.stderr)")
      #expect(InterfaceMembers.of(interface, in: r.stdout) == reference, "\(interface) at \(path)")
    }
    #expect(locd.stop() == 0)
  }

  @Test(
    .enabled(if: GeoCluePrograms.busInstalled, "needs dbus-daemon, busctl, python3-dbus and python3-gi"),
    .enabled(if: GeoCluePrograms.demosInstalled, "needs geoclue-2-demo"))
  func whereAmIPrintsTheReplayedPositionAfterTheDemoAgentsPrompt() throws {
    let (bus, locd) = try rig()
    // The demo agent asks the person at the screen through a desktop notification; the
    // clicker on a private session bus answers "yes" as a person would.
    let session = bus.directory + "/session_bus_socket"
    let sessionBus = try Child(
      "/usr/bin/dbus-daemon", ["--session", "--nofork", "--address=unix:path=\(session)"])
    defer {
      kill(sessionBus.pid, SIGTERM)
      sessionBus.wait(timeout: 5)
    }
    var env = bus.environment
    env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(session)"
    let prompts = bus.directory + "/prompts.log"
    let clicker = try LinePeer(
      GeoCluePrograms.peer("notification-clicker.py"), ["yes", prompts], environment: env,
      output: bus.directory + "/clicker.out")
    defer { clicker.stop() }
    var named = false
    for _ in 0..<250 where !named {
      let r = try? run(
        URL(fileURLWithPath: "/usr/bin/busctl"),
        ["--address=unix:path=\(session)", "status", "org.freedesktop.Notifications"])
      named = r?.status == 0
      if !named { usleep(40_000) }
    }
    #expect(named, "the notification clicker did not take its name: \(clicker.text)")
    let demoAgent = try LinePeer(
      GeoCluePrograms.demoAgent, [], environment: env, output: bus.directory + "/demo-agent.out")
    defer { demoAgent.stop() }
    let deadline = Date().addingTimeInterval(10)
    while !locd.log.contains("agent 'geoclue-demo-agent' registered") && Date() < deadline { usleep(50_000) }
    #expect(locd.log.contains("agent 'geoclue-demo-agent' registered for uid \(getuid())"), "\(locd.log)")

    let out = try runClient(GeoCluePrograms.whereAmI, ["-t", "5", "-a", "8"], on: bus)
    // where-am-i prints each location with %f: the replayed fix to six decimals.
    #expect(out.contains("Latitude:    59.913900°"), "\(out)\n\(locd.log)")
    #expect(out.contains("Longitude:   10.752200°"), "\(out)")
    let asked = (try? String(contentsOfFile: prompts, encoding: .utf8)) ?? ""
    #expect(asked.contains("Allow 'Where am I?' to access your location information?"), "\(asked)")
    #expect(locd.stop() == 0)
  }

  @Test(
    .enabled(if: GeoCluePrograms.busInstalled, "needs dbus-daemon, busctl, python3-dbus and python3-gi"),
    .enabled(if: GeoCluePrograms.colourToolsInstalled, "needs gammastep and redshift"))
  func gammastepAndRedshiftPrintTheReducedLocationOfTheirCityLevel() throws {
    let (bus, locd) = try rig()
    let agent = try agent(8, "yes", on: bus)
    defer { agent.stop() }
    // They ask for CITY (4), so they get reduced accuracy: the centre of the reduced grid's
    // cell of the replayed position (docs/APPS.md), which they print to two decimals.
    let centre = ReducedGrid.centre(
      ReducedGrid.cell(of: Coordinate(lat: OsloReplay.latitude, lon: OsloReplay.longitude)!))
    let expected = String(format: "Location: %.2f N, %.2f E", centre.latitude.value, centre.longitude.value)
    #expect(expected != "Location: 59.91 N, 10.75 E", "the cell's centre is not the position")
    for program in ["/usr/bin/gammastep", "/usr/bin/redshift"] {
      // -p prints the location, the period and the colour temperature, then exits.
      let out = try runClient(program, ["-l", "geoclue2", "-p"], on: bus, timeout: 30)
      #expect(out.contains(expected), "\(program): \(out)\n\(locd.log)")
      #expect(out.contains("Period: "), "\(program): \(out)")
    }
    // Each asked as itself (the DesktopId it set), at the level it requested (CITY, 4).
    #expect(agent.text.contains("authorize gammastep 4"), "\(agent.text)")
    #expect(agent.text.contains("authorize redshift 4"), "\(agent.text)")
    #expect(locd.stop() == 0)
  }

  @Test(
    .enabled(if: GeoCluePrograms.busInstalled, "needs dbus-daemon, busctl, python3-dbus and python3-gi"),
    .enabled(if: GeoCluePrograms.demosInstalled, "needs geoclue-2-demo"))
  func startIsAnsweredWithTheReasonWithoutAgentWithGeolocationOffAndWhenTheAgentRefuses() throws {
    let (bus, locd) = try rig()
    // No agent for this uid: answered after the wait for one, not queued forever.
    // (where-am-i's -t must outlast locd's 5 s wait for an agent.)
    var out = try runClient(GeoCluePrograms.whereAmI, ["-t", "15"], on: bus)
    #expect(out.contains("org.freedesktop.DBus.Error.AccessDenied"), "\(out)")
    #expect(out.contains("no agent for UID \(getuid())"), "\(out)")
    // An agent with MaxAccuracyLevel 0: geolocation is off for the user; nobody is asked.
    let agent = try agent(0, "no", on: bus)
    defer { agent.stop() }
    out = try runClient(GeoCluePrograms.whereAmI, ["-t", "10"], on: bus)
    #expect(out.contains("Geolocation disabled for UID \(getuid())"), "\(out)")
    #expect(!agent.text.contains("authorize"), "\(agent.text)")
    // The agent turns it on (a property change locd watches) and then refuses the app.
    agent.send("max 8")
    let deadline = Date().addingTimeInterval(10)
    while !locd.log.contains("set MaxAccuracyLevel 8") && Date() < deadline { usleep(20_000) }
    out = try runClient(GeoCluePrograms.whereAmI, ["-t", "10", "-a", "8"], on: bus)
    #expect(out.contains("org.freedesktop.DBus.Error.AccessDenied"), "\(out)")
    #expect(out.contains("Agent rejected 'geoclue-where-am-i'"), "\(out)")
    #expect(agent.text.contains("authorize geoclue-where-am-i 8"), "\(agent.text)")
    #expect(!out.contains("Latitude:"), "\(out)")
    // The refusal is kept: the next Start is denied without asking the agent again.
    out = try runClient(GeoCluePrograms.whereAmI, ["-t", "10", "-a", "8"], on: bus)
    #expect(
      out.contains("'geoclue-where-am-i' was denied the location for UID \(getuid()) (by agent)"), "\(out)")
    #expect(agent.text.components(separatedBy: "authorize").count == 2, "\(agent.text)")
    #expect(locd.stop() == 0)
  }

  /// `status` has a `geoclue` member while the face is enabled: the name owned, the clients,
  /// the agents by uid and the counters, as a real where-am-i and a client that stays started
  /// leave them; `locctl status` says it in one line. With the face off there is no member.
  @Test(
    .enabled(if: GeoCluePrograms.busInstalled, "needs dbus-daemon, busctl, python3-dbus and python3-gi"),
    .enabled(if: GeoCluePrograms.demosInstalled, "needs geoclue-2-demo"))
  func statusShowsTheFaceItsClientsAgentsAndCounters() throws {
    let (bus, locd) = try rig()
    func geoclue() throws -> JSON {
      let r = try locd.locctl(["status", "--json"])
      return try #require(try JSON.parse(r.stdout)["geoclue"], "no geoclue member: \(r.stdout)")
    }
    var g = try geoclue()
    #expect(g["state"]?.string == "serving" && g["reason"] == .null, "\(g.serialized)")
    #expect(g["clients"]?.number == 0 && g["activeClients"]?.number == 0 && g["agents"] == .array([]))
    let agent = try agent(8, "yes", on: bus)
    defer { agent.stop() }
    let out = try runClient(GeoCluePrograms.whereAmI, ["-t", "5", "-a", "8"], on: bus)
    #expect(out.contains("Latitude:    59.913900°"), "\(out)\n\(locd.log)")
    // A second client that stays started while status is read.
    let holder = try LinePeer(
      GeoCluePrograms.peer("geoclue-probe.py"), ["hold", "org.example.Held", "8"],
      environment: bus.environment, output: bus.directory + "/held.out")
    defer { holder.stop() }
    #expect(holder.waitFor("\"location\""), "\(holder.text)\n\(locd.log)")

    // where-am-i left (its client went with its connection); the holder's is there, active.
    g = try geoclue()
    #expect(g["state"]?.string == "serving", "\(g.serialized)")
    #expect(g["clients"]?.number == 1 && g["activeClients"]?.number == 1, "\(g.serialized)")
    #expect(g["agents"] == .array([.number(Double(getuid()))]), "\(g.serialized)")
    let c = try #require(g["counters"], "\(g.serialized)")
    // Two clients made, two apps asked about once each, both started, each signalled at
    // least its first location; one agent; nothing refused.
    #expect(c["clientsCreated"]?.number == 2, "\(c.serialized)")
    #expect(c["authorizeCalls"]?.number == 2 && c["agentsAdded"]?.number == 1, "\(c.serialized)")
    #expect((c["starts"]?.number ?? 0) >= 2 && (c["locationsSignalled"]?.number ?? 0) >= 2, "\(c.serialized)")
    for zero in ["clientsRefused", "strangersDenied", "startsDenied", "identitiesRefused", "agentsRefused"] {
      #expect(c[zero]?.number == 0, "\(zero): \(c.serialized)")
    }
    // The typed view decodes it too (what locctl reads).
    let view = try #require(try locd.status().geoclue)
    #expect(view.state == .known(.serving) && view.agents == [getuid()])

    let human = try locd.locctl(["status"]).stdout
    #expect(human.contains("on the system bus, 1 client (1 active), 1 agent"), "\(human)")
    #expect(!human.contains("locationsSignalled"), "counters only with --verbose: \(human)")
    let verbose = try locd.locctl(["status", "--verbose"]).stdout
    #expect(verbose.contains("clientsCreated 2") && verbose.contains("locationsSignalled"), "\(verbose)")
    holder.stop()
    _ = try locd.waitForStatus { $0.geoclue?.clients == 0 }
    #expect(locd.stop() == 0)

    // The face off, the same bus there: no member, and nothing about GeoClue2 on the screen.
    let off = try LocdProcess(environment: bus.environment, config: "[GeoClue]\nEnable=no\n")
    let plain = try off.locctl(["status", "--json"])
    #expect(try JSON.parse(plain.stdout)["geoclue"] == nil, "\(plain.stdout)")
    #expect(!(try off.locctl(["status"]).stdout.contains("GeoClue2")))
    #expect(off.stop() == 0)
  }

  /// With the face enabled and no system bus to reach, status says so and why, the socket
  /// serves, and the face is there once the bus is (locd tries again, 1 s doubling).
  @Test(.enabled(if: GeoCluePrograms.busInstalled, "needs dbus-daemon, busctl, python3-dbus and python3-gi"))
  func statusSaysWhyWithoutASystemBusAndTheFaceComesWithTheBus() throws {
    let busDirectory = LocdProcess.makeDirectory()
    let locd = try LocdProcess(
      environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(busDirectory)/system_bus_socket"],
      config: "[GeoClue]\nEnable=yes\n")
    let g = try #require(try locd.status().geoclue, "\(locd.log)")
    #expect(g.state == .known(.noBus), "\(g.json.serialized)")
    #expect(g.reason?.contains("cannot connect to the system bus") == true, "\(g.json.serialized)")
    #expect(g.clients == 0 && g.agents.isEmpty)
    let human = try locd.locctl(["status"]).stdout
    #expect(
      human.contains("not serving org.freedesktop.GeoClue2: cannot connect to the system bus"), "\(human)")
    // The bus comes up at that address: locd takes the name at its next try.
    let bus = try PrivateSystemBus(policies: [Self.policy], directory: busDirectory)
    #expect(bus.waitForOwner("org.freedesktop.GeoClue2", timeout: 20), "\(locd.log)")
    _ = try locd.waitForStatus { $0.geoclue?.state == .known(.serving) }
    #expect(locd.stop() == 0)
  }

  @Test(.enabled(if: GeoCluePrograms.busInstalled, "needs dbus-daemon, busctl, python3-dbus and python3-gi"))
  func aTakenNameIsLoggedAndTheSocketKeepsServing() throws {
    let (bus, first) = try rig()
    // A second locd (as if geoclue owned the name): it says so and serves its socket.
    let second = try startGeoClueLocd(on: bus, waitForName: false)
    let deadline = Date().addingTimeInterval(10)
    while !second.log.contains("cannot own org.freedesktop.GeoClue2") && Date() < deadline { usleep(20_000) }
    #expect(
      second.log.contains(
        "GeoClue: cannot own org.freedesktop.GeoClue2: another program owns it (is geoclue running?"),
      "\(second.log)")
    // Its socket answers, and its status says why it does not serve GeoClue2.
    let g = try #require(try second.status().geoclue)
    #expect(g.state == .known(.nameTaken), "\(g.json.serialized)")
    #expect(g.reason?.contains("another program owns it") == true, "\(g.json.serialized)")
    #expect(try first.status().geoclue?.state == .known(.serving))
    let human = try second.locctl(["status"]).stdout
    #expect(human.contains("not serving org.freedesktop.GeoClue2: another program owns it"), "\(human)")
    let owner = try bus.busctl(["status", "org.freedesktop.GeoClue2"])
    #expect(owner.stdout.contains("PID=\(first.pid)\n"), "\(owner.stdout)")
    #expect(second.stop() == 0)
    #expect(first.stop() == 0)
  }

  @Test(.enabled(if: GeoCluePrograms.busInstalled, "needs dbus-daemon, busctl, python3-dbus and python3-gi"))
  func busActivationThroughTheShippedFileStartsLocdServiceAndTheCallIsAnswered() throws {
    let dir = LocdProcess.makeDirectory()
    // The stand-in for systemd may own its name on this bus.
    try """
    <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
     "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
    <busconfig><policy user="root"><allow own="org.freedesktop.systemd1"/></policy></busconfig>
    """.write(toFile: dir + "/systemd1.conf", atomically: true, encoding: .utf8)
    let bus = try PrivateSystemBus(
      policies: [Self.policy, dir + "/systemd1.conf"],
      services: [Binaries.packageRoot.path + "/dbus/org.freedesktop.GeoClue2.service"],
      systemdActivation: true,
      directory: dir)
    let systemd = try LinePeer(
      GeoCluePrograms.peer("systemd-activator.py"), [], environment: bus.environment,
      output: dir + "/activator.out")
    defer { systemd.stop() }
    #expect(systemd.waitFor("ready"), "\(systemd.text)")
    // A client calls GeoClue while nothing owns the name: the bus asks systemd for the unit
    // the activation file names, and holds the call.
    let caller = try LinePeer(
      "/usr/bin/busctl",
      [
        "--address=\(bus.address)", "call", "org.freedesktop.GeoClue2", "/org/freedesktop/GeoClue2/Manager",
        "org.freedesktop.GeoClue2.Manager", "GetClient",
      ], environment: [:], output: dir + "/call.out")
    defer { caller.stop() }
    #expect(systemd.waitFor("activate locd.service"), "\(systemd.text)")
    #expect(caller.text.isEmpty, "\(caller.text)")
    // systemd would start locd.service now; the test starts the same binary with the face on.
    let locd = try startGeoClueLocd(on: bus)
    #expect(caller.waitFor("o \"/org/freedesktop/GeoClue2/Client/"), "\(caller.text)\n\(locd.log)")
    #expect(locd.stop() == 0)
  }

  @Test(
    .enabled(if: getuid() == 0, "needs root to run the peers as another user"),
    .enabled(if: GeoCluePrograms.busInstalled, "needs dbus-daemon, busctl, python3-dbus and python3-gi"))
  func anotherUsersAgentDecidesForItsUserOnlyAndTheDecisionIsThatUsersApp() throws {
    let (bus, locd) = try rig()
    // root's agent says yes to everything; it is not asked about another user's apps.
    let rootAgent = try agent(8, "yes", on: bus)
    defer { rootAgent.stop() }
    // nobody (65534, in no locd group) with its own agent that says yes.
    let asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    let nobodyAgent = try LinePeer(
      "/usr/bin/setpriv", asNobody + [GeoCluePrograms.peer("geoclue-agent.py"), "8", "yes"],
      environment: bus.environment, output: bus.directory + "/nobody-agent.out")
    defer { nobodyAgent.stop() }
    #expect(nobodyAgent.waitFor("ready"), "\(nobodyAgent.text)")
    func start() throws -> JSON {
      let r = try run(
        URL(fileURLWithPath: "/usr/bin/setpriv"),
        asNobody + [GeoCluePrograms.peer("geoclue-probe.py"), "start", "nobodys-app", "8"],
        environment: bus.environment)
      return try JSON.parse(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    // Its agent said yes: an app of uid 65534 (no locd group needed; apps are authorized
    // per app, not by the socket's groups), decided by that user's agent.
    let answer = try start()
    #expect(nobodyAgent.text.contains("authorize nobodys-app 8"), "\(nobodyAgent.text)")
    #expect(!rootAgent.text.contains("nobodys-app"), "\(rootAgent.text)")
    #expect(answer["started"] == .bool(true), "\(answer)\n\(locd.log)")
    let list = try AppListResult(json: JSON.parse(Array(try locd.locctl(["apps", "--json"]).stdout.utf8)))
    let app = try #require(list.apps.first { $0.app == "nobodys-app" }, "\(list)")
    #expect(app.uid == 65534 && app.status == .known(.whenInUse) && app.decidedBy == "agent")
    // The administrator denies it for that user: the next Start is refused with the reason.
    #expect(try locd.locctl(["apps", "deny", "nobodys-app", "--user", "65534"]).status == 0)
    let denied = try start()
    #expect(denied["error"]?.string == "org.freedesktop.DBus.Error.AccessDenied", "\(denied)")
    #expect(denied["message"]?.string?.contains("was denied the location for UID 65534") == true, "\(denied)")
    #expect(nobodyAgent.text.components(separatedBy: "authorize").count == 2, "\(nobodyAgent.text)")
    #expect(locd.stop() == 0)
  }
}
