import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// The real locd with a `bluez:` source on a private bus configured like the system bus,
/// against the BlueZ stand-in (python3-dbusmock's bluez5 template: no Bluetooth controller
/// exists here; see BlueZStandIn.swift), driven by `locctl beacons range|monitor` and checked
/// through `locctl status` and the calls the stand-in recorded.
@Suite(.serialized) struct BlueZSourceTests {
  static let uuid = "2f234454-cf6d-4a0f-adf2-f4911ba9ffa6"
  static let a = "c0:ff:ee:00:00:01"
  static let b = "c0:ff:ee:00:00:02"
  /// Measured power −59 dBm: at −70 dBm the log-distance model (n = 2) gives 3.5 m (far),
  /// at −50 dBm 0.35 m (immediate), at −45 dBm 0.2 m, at −75 dBm 6.3 m (docs/BEACONS.md).
  static let frameA = BlueZStandIn.iBeacon(uuid, major: 1, minor: 1, power: -59)
  static let frameB = BlueZStandIn.iBeacon(uuid, major: 1, minor: 2, power: -59)
  /// An AltBeacon of the same UUID (company 0x0118, Radius Networks, who wrote the spec),
  /// reference RSSI −59 dBm: at −60 dBm 1.1 m (near).
  static let c = "c0:ff:ee:00:00:03"
  static let frameC = BlueZStandIn.altBeacon(uuid, company: 0x0118, major: 1, minor: 3, power: -59)

  /// A bus, the stand-in with adapter hci0, and locd with `bluez:`.
  struct Rig {
    let bus: PrivateSystemBus
    let bluez: BlueZStandIn
    let locd: LocdProcess

    init(
      source: String = "bluez:", blueZFirst: Bool = true, prepare: (BlueZStandIn) throws -> Void = { _ in }
    )
      throws
    {
      bus = try PrivateSystemBus(policies: [BlueZStandIn.policy])
      bluez = BlueZStandIn(bus: bus)
      if blueZFirst {
        try bluez.start()
        try bluez.addAdapter("hci0")
        try prepare(bluez)
      }
      locd = try LocdProcess(arguments: ["--source", source], environment: bus.environment)
    }
  }

  /// `locctl beacons VERB ARGS --json` running in the background; its events so far.
  final class Watcher {
    let output: String
    let child: Child

    init(_ locd: LocdProcess, _ arguments: [String]) throws {
      output =
        locd.directory
        + "/watch-\(arguments.joined(separator: "-").replacingOccurrences(of: ":", with: "_")).jsonl"
      let fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
      defer { close(fd) }
      child = try Child(
        Binaries.locctl.path, ["--socket", locd.socketPath, "beacons"] + arguments + ["--json"], stdoutFD: fd)
    }

    var events: [EventMessage] {
      let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
      return text.split(separator: "\n").compactMap { line in
        guard case .event(let e)? = try? ServerMessage.decode(Array(line.utf8)) else { return nil }
        return e
      }
    }

    /// The ranging lists so far, each as "major:minor proximity" words in order.
    var lists: [[String]] {
      events.compactMap { e in
        guard case .beaconsRanged(let r) = e.data else { return nil }
        return r.beacons.map { "\($0.identity.major):\($0.identity.minor) \($0.proximity.rawValue)" }
      }
    }

    /// The region events so far.
    var regionEvents: [String] {
      events.compactMap { e in
        guard case .beaconRegion(let r) = e.data else { return nil }
        return r.event.rawValue
      }
    }

    func stop() {
      if child.isRunning { kill(child.pid, SIGTERM) }
      child.wait(timeout: 5)
    }

    deinit { stop() }
  }

  /// Repeats `body` every 200 ms until `done` holds (`timeout` s at most); whether it did.
  @discardableResult static func keep(timeout: Double = 15, _ body: () throws -> Void, until done: () -> Bool)
    rethrows
    -> Bool
  {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      try body()
      if done() { return true }
      usleep(200_000)
    }
    return done()
  }

  /// Polls `condition` every 50 ms (10 s at most).
  @discardableResult static func wait(timeout: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if try condition() { return true }
      usleep(50_000)
    }
    return try condition()
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns org.bluez, which the policy gives root only"),
    .enabled(if: BlueZStandIn.installed, "needs dbus-daemon, busctl and python3-dbusmock"))
  func devicesDiscoveryFollowingRangingAndRSSIReordering() throws {
    // Device A is in BlueZ's objects before locd starts: found in a discovery under way.
    let rig = try Rig { try $0.addDevice("hci0", Self.a, rssi: -70, data: Self.frameA) }
    let locd = rig.locd
    defer { locd.stop() }
    // GetManagedObjects gave A: with an RSSI and an iBeacon frame, it counts as heard once.
    var status = try locd.waitForStatus {
      $0.sourceState() == .known(.connected) && $0.counters()["beaconDevices"] == 1
    }
    #expect(status.counters()["devices"] == 1)
    #expect(status.counters()["advertisements"] == 1)
    #expect(status.counters()["adapter"] == 1 && status.counters()["bluez"] == 1)
    #expect(status.beacons?.counters.first { $0.name == "sightings" }?.value == 1)
    // Nobody ranges or monitors: no discovery.
    #expect(try rig.bluez.discoveryCalls("hci0") == [])
    #expect(status.counters()["discovering"] == 0)

    // A client ranges: the filter (LE, every advertisement), then StartDiscovery.
    let ranging = try Watcher(locd, ["range", Self.uuid])
    #expect(
      try Self.wait { try rig.bluez.discoveryCalls("hci0") == ["SetDiscoveryFilter", "StartDiscovery"] })
    #expect(try rig.bluez.filters("hci0") == [["DuplicateData=1", "Transport=le"]])
    status = try locd.waitForStatus { $0.counters()["discovering"] == 1 }
    #expect(status.beacons?.scanning == true)

    // B appears through InterfacesAdded, close (−50 dBm), and C, an AltBeacon, at −60 dBm;
    // A advertises far away (−70 dBm).
    let pathA = BlueZStandIn.path("hci0", Self.a)
    let pathB = try rig.bluez.addDevice("hci0", Self.b, rssi: -50, data: Self.frameB)
    let pathC = try rig.bluez.addDevice("hci0", Self.c, rssi: -60, data: Self.frameC)
    let first = try Self.keep(
      {
        try rig.bluez.advertise(pathA, rssi: -70, data: Self.frameA)
        try rig.bluez.advertise(pathB, rssi: -50, data: Self.frameB)
        try rig.bluez.advertise(pathC, rssi: -60, data: Self.frameC)
      }, until: { ranging.lists.last == ["1:2 immediate", "1:3 near", "1:1 far"] })
    #expect(first, "lists: \(ranging.lists)")
    status = try locd.status()
    #expect(status.counters()["devices"] == 3 && status.counters()["altbeacon"] ?? 0 >= 1)

    // RSSI changes reorder the list once the 5 s medians have moved: A close, B far.
    let reordered = try Self.keep(
      {
        try rig.bluez.advertise(pathA, rssi: -45, data: Self.frameA)
        try rig.bluez.advertise(pathB, rssi: -75, data: Self.frameB)
        try rig.bluez.advertise(pathC, rssi: -60, data: Self.frameC)
      }, until: { ranging.lists.last == ["1:1 immediate", "1:3 near", "1:2 far"] })
    #expect(reordered, "lists: \(ranging.lists)")

    // The client goes: StopDiscovery, and nothing more.
    ranging.stop()
    #expect(
      try Self.wait {
        try rig.bluez.discoveryCalls("hci0") == ["SetDiscoveryFilter", "StartDiscovery", "StopDiscovery"]
      }, "\((try? rig.bluez.discoveryCalls("hci0")) ?? [])")
    status = try locd.waitForStatus { $0.counters()["discovering"] == 0 }
    #expect(status.counters()["discoveryStarts"] == 1 && status.counters()["discoveryStops"] == 1)
    #expect(status.counters()["discoveryErrors"] == 0)
    #expect(
      !locd.log.contains(Self.a) && !locd.log.contains(Self.uuid), "identities are not logged above debug")
  }

  /// Values of types BlueZ never sends (issue 28's partial): a ManufacturerData entry whose
  /// value is a string beside a good iBeacon entry, and an RSSI as a 32-bit integer, each
  /// count as a bad message; the good entry is still read and the beacon still ranged.
  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns org.bluez, which the policy gives root only"),
    .enabled(if: BlueZStandIn.installed, "needs dbus-daemon, busctl and python3-dbusmock"))
  func wrongTypedPropertiesAreCountedAndTheRestIsRead() throws {
    let rig = try Rig()
    let locd = rig.locd
    defer { locd.stop() }
    _ = try locd.waitForStatus { $0.sourceState() == .known(.connected) }
    let path = try rig.bluez.addDevice("hci0", Self.a, rssi: -60, data: Self.frameA)
    let range = try Watcher(locd, ["range", "\(Self.uuid):1:1"])
    defer { range.stop() }
    #expect(try Self.wait { try rig.bluez.discoveryCalls("hci0").contains("StartDiscovery") })
    #expect(try locd.status().counters()["badMessages"] == 0)
    let good = BlueZStandIn.manufacturerWords(Self.frameA).dropFirst(2)  // company, ay, bytes
    let mixed = ["RSSI", "n", "-60", "ManufacturerData", "a{qv}", "2", "6", "s", "not bytes"] + good
    let ranged = try Self.keep(
      { try rig.bluez.advertise(path, properties: 2, words: mixed) },
      until: { range.lists.contains(["1:1 near"]) || range.lists.contains(["1:1 far"]) })
    #expect(ranged, "the good entry beside the bad one is read: \(range.lists)")
    let afterMixed = try locd.status().counters()["badMessages"] ?? 0
    #expect(afterMixed >= 1, "a string where bytes belong is counted")
    try rig.bluez.advertise(path, properties: 1, words: ["RSSI", "i", "-60"])
    #expect(try Self.wait { try locd.status().counters()["badMessages"] ?? 0 > afterMixed })
    #expect(try locd.status().sourceState() == .known(.connected))
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns org.bluez, which the policy gives root only"),
    .enabled(if: BlueZStandIn.installed, "needs dbus-daemon, busctl and python3-dbusmock"))
  func removedAndSilentBeaconsExitAfterExitAfter() throws {
    let rig = try Rig()
    let locd = rig.locd
    defer { locd.stop() }
    _ = try locd.waitForStatus { $0.sourceState() == .known(.connected) }
    let pathA = try rig.bluez.addDevice("hci0", Self.a, rssi: -60, data: Self.frameA)
    let pathB = try rig.bluez.addDevice("hci0", Self.b, rssi: -60, data: Self.frameB)
    // ExitAfter 2 s: A's region is left when BlueZ removes A, B's when B falls silent.
    let monitorA = try Watcher(locd, ["monitor", "--exit-after", "2s", "\(Self.uuid):1:1"])
    let monitorB = try Watcher(locd, ["monitor", "--exit-after", "2s", "\(Self.uuid):1:2"])
    #expect(try Self.wait { try rig.bluez.discoveryCalls("hci0").contains("StartDiscovery") })
    let entered = try Self.keep(
      {
        try rig.bluez.advertise(pathA, rssi: -60, data: Self.frameA)
        try rig.bluez.advertise(pathB, rssi: -60, data: Self.frameB)
      }, until: { monitorA.regionEvents == ["entered"] && monitorB.regionEvents == ["entered"] })
    #expect(entered, "A: \(monitorA.regionEvents), B: \(monitorB.regionEvents)")
    // A is removed (InterfacesRemoved); B stays in BlueZ's objects but is not heard again.
    try rig.bluez.removeDevice("hci0", pathA)
    _ = try locd.waitForStatus { $0.counters()["devices"] == 1 }
    #expect(Self.wait { monitorA.regionEvents == ["entered", "exited"] }, "\(monitorA.regionEvents)")
    #expect(Self.wait { monitorB.regionEvents == ["entered", "exited"] }, "\(monitorB.regionEvents)")
    monitorA.stop()
    monitorB.stop()
    #expect(try Self.wait { try rig.bluez.discoveryCalls("hci0").last == "StopDiscovery" })
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns org.bluez, which the policy gives root only"),
    .enabled(if: BlueZStandIn.installed, "needs dbus-daemon, busctl and python3-dbusmock"))
  func blueZMissingRestartingAndTheAdapterComingBack() throws {
    // locd starts before BlueZ: a state in status, not a failure.
    let rig = try Rig(blueZFirst: false)
    let locd = rig.locd
    defer { locd.stop() }
    var status = try locd.waitForStatus {
      $0.sources.first?.lastError?.contains("not on the system bus") == true
    }
    #expect(status.sourceState() == .known(.starting) && status.counters()["bluez"] == 0)
    let ranging = try Watcher(locd, ["range", Self.uuid])
    _ = try locd.waitForStatus { $0.beacons?.scanning == true }

    // BlueZ starts without an adapter, then the adapter appears: discovery starts on it.
    try rig.bluez.start()
    status = try locd.waitForStatus { $0.sources.first?.lastError?.contains("no Bluetooth adapter") == true }
    #expect(status.counters()["bluez"] == 1 && status.counters()["adapter"] == 0)
    try rig.bluez.addAdapter("hci0")
    #expect(
      try Self.wait { try rig.bluez.discoveryCalls("hci0") == ["SetDiscoveryFilter", "StartDiscovery"] })
    status = try locd.waitForStatus {
      $0.sourceState() == .known(.connected) && $0.counters()["discovering"] == 1
    }
    #expect(status.sources.first?.lastError == nil)
    var path = try rig.bluez.addDevice("hci0", Self.a, rssi: -50, data: Self.frameA)
    #expect(
      try Self.keep(
        { try rig.bluez.advertise(path, rssi: -50, data: Self.frameA) },
        until: { ranging.lists.last == ["1:1 immediate"] }))

    // BlueZ crashes: locd keeps serving and waits for it; the list empties as A falls silent.
    rig.bluez.stop(signal: SIGKILL)
    status = try locd.waitForStatus { $0.counters()["bluez"] == 0 }
    #expect(status.counters()["bluezVanished"] == 1 && status.counters()["discovering"] == 0)
    #expect(status.sources.first?.lastError?.contains("not on the system bus") == true)

    // BlueZ comes back with its adapter: the filter and StartDiscovery again, A heard again.
    try rig.bluez.start()
    try rig.bluez.addAdapter("hci0")
    #expect(
      try Self.wait { try rig.bluez.discoveryCalls("hci0") == ["SetDiscoveryFilter", "StartDiscovery"] })
    path = try rig.bluez.addDevice("hci0", Self.a, rssi: -50, data: Self.frameA)
    let before = ranging.lists.count
    #expect(
      try Self.keep(
        { try rig.bluez.advertise(path, rssi: -50, data: Self.frameA) },
        until: { ranging.lists.count > before && ranging.lists.last == ["1:1 immediate"] }))

    // The adapter vanishes (with its devices) and returns: a state, then discovery again.
    try rig.bluez.removeAdapter("hci0")
    status = try locd.waitForStatus { $0.counters()["adapter"] == 0 }
    #expect(status.counters()["adapterLost"] == 1 && status.sourceState() == .known(.starting))
    #expect(status.sources.first?.lastError?.contains("no Bluetooth adapter") == true)
    try rig.bluez.addAdapter("hci0")
    #expect(
      try Self.wait { try rig.bluez.discoveryCalls("hci0") == ["SetDiscoveryFilter", "StartDiscovery"] })
    status = try locd.waitForStatus { $0.counters()["discovering"] == 1 }
    #expect(status.counters()["discoveryStarts"] == 3)
    ranging.stop()
    #expect(try Self.wait { try rig.bluez.discoveryCalls("hci0").last == "StopDiscovery" })
    #expect(locd.stop() == 0)
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns org.bluez, which the policy gives root only"),
    .enabled(if: BlueZStandIn.installed, "needs dbus-daemon, busctl and python3-dbusmock"))
  func aPoweredOffAdapterAndAFailingStartDiscoveryAreWaitedOut() throws {
    let rig = try Rig()
    let locd = rig.locd
    defer { locd.stop() }
    _ = try locd.waitForStatus { $0.sourceState() == .known(.connected) }
    try rig.bluez.setPowered("hci0", false)
    let ranging = try Watcher(locd, ["range", Self.uuid])
    defer { ranging.stop() }
    // Powered off: no call, and status says why.
    var status = try locd.waitForStatus { $0.sources.first?.lastError?.contains("powered off") == true }
    #expect(status.sourceState() == .known(.connected) && status.counters()["discovering"] == 0)
    #expect(try rig.bluez.discoveryCalls("hci0") == [])
    // Powered on, but the controller is not ready: the error is counted and shown, and the
    // start is tried again (5 s later) until it works.
    try rig.bluez.failStartDiscovery("hci0", true)
    try rig.bluez.setPowered("hci0", true)
    status = try locd.waitForStatus { $0.counters()["discoveryErrors"] == 1 }
    #expect(status.sources.first?.lastError?.contains("org.bluez.Error.NotReady") == true)
    #expect(try rig.bluez.discoveryCalls("hci0") == ["SetDiscoveryFilter", "StartDiscovery"])
    try rig.bluez.failStartDiscovery("hci0", false)
    status = try locd.waitForStatus(timeout: 15) { $0.counters()["discovering"] == 1 }
    #expect(status.sources.first?.lastError == nil && status.counters()["discoveryStarts"] == 1)
    #expect(
      try rig.bluez.discoveryCalls("hci0") == [
        "SetDiscoveryFilter", "StartDiscovery", "SetDiscoveryFilter", "StartDiscovery",
      ])
  }
}
