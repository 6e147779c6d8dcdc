import LocCore
import Testing

@testable import LocSystem

/// The parts of the `bluez:` source without a bus: which adapter and devices are BlueZ's
/// that locd uses (BlueZPresence), and which discovery call to make (BlueZDiscovery).
@Suite struct BlueZPartsTests {
  /// `next` on adapter hci0 (a mutating call cannot sit inside #expect).
  static func step(
    _ discovery: inout BlueZDiscovery, ready: Bool, powered: Bool, retryPending: Bool
  ) -> BlueZDiscovery.Step {
    discovery.next(ready: ready, adapter: "hci0", powered: powered, retryPending: retryPending)
  }

  static func fail(_ discovery: inout BlueZDiscovery, _ text: String) -> Bool {
    discovery.failed(text)
  }

  @Test func theDefaultAdapterIsTheLowestNumberedOne() {
    let presence = BlueZPresence(adapterName: nil)
    let paths = ["/org/bluez/hci10", "/org/bluez/hci1", "/org/bluez/hci1/dev_00", "/org/bluez"]
    #expect(presence.chooseAdapter(paths) == "/org/bluez/hci1")
    #expect(presence.chooseAdapter(["/org/bluez/hci0/dev_00"]) == nil)
  }

  @Test func anAdapterAskedForIsTakenOnlyWhenItIsThere() {
    let presence = BlueZPresence(adapterName: "hci1")
    #expect(presence.chooseAdapter(["/org/bluez/hci0", "/org/bluez/hci1"]) == "/org/bluez/hci1")
    #expect(presence.chooseAdapter(["/org/bluez/hci0"]) == nil)
  }

  @Test func devicesAreOneLevelBelowTheAdapterInUse() {
    var presence = BlueZPresence(adapterName: nil)
    #expect(!presence.isOurs("/org/bluez/hci0/dev_00_11"))
    presence.arrived(":1.7")
    presence.adopt("/org/bluez/hci0", powered: true)
    #expect(presence.isOurs("/org/bluez/hci0/dev_00_11"))
    #expect(!presence.isOurs("/org/bluez/hci0/dev_00_11/service0001"))
    #expect(!presence.isOurs("/org/bluez/hci0"))
    #expect(!presence.isOurs("/org/bluez/hci0/"))
    #expect(!presence.isOurs("/org/bluez/hci01/dev_00"))
  }

  @Test func everyChangeOfBlueZOrTheAdapterMovesTheEpoch() {
    var presence = BlueZPresence(adapterName: nil)
    presence.arrived(":1.7")
    let first = presence.epoch
    presence.adopt("/org/bluez/hci0", powered: true)
    #expect(presence.epoch == first)
    presence.gone()
    #expect(presence.epoch > first)
    #expect(presence.owner == nil && presence.adapterPath == nil && !presence.adapterPowered)
  }

  @Test func discoveryStartsWhenWantedOnAPoweredReadyAdapterAndStopsWhenNoLongerWanted() {
    var discovery = BlueZDiscovery()
    #expect(Self.step(&discovery, ready: true, powered: true, retryPending: false) == .wait)
    discovery.wanted = true
    #expect(Self.step(&discovery, ready: false, powered: true, retryPending: false) == .wait)
    #expect(Self.step(&discovery, ready: true, powered: true, retryPending: true) == .wait)
    #expect(Self.step(&discovery, ready: true, powered: true, retryPending: false) == .start)
    discovery.calling()
    #expect(Self.step(&discovery, ready: true, powered: true, retryPending: false) == .wait)
    discovery.started()
    #expect(discovery.running)
    #expect(Self.step(&discovery, ready: true, powered: true, retryPending: false) == .wait)
    discovery.wanted = false
    #expect(Self.step(&discovery, ready: true, powered: true, retryPending: false) == .stop)
    discovery.calling()
    discovery.stopped()
    #expect(!discovery.running)
    #expect(Self.step(&discovery, ready: true, powered: true, retryPending: false) == .wait)
  }

  @Test func aPoweredOffAdapterIsTheProblemUntilScanningIsNoLongerWanted() {
    var discovery = BlueZDiscovery()
    discovery.wanted = true
    #expect(Self.step(&discovery, ready: true, powered: false, retryPending: false) == .wait)
    #expect(discovery.problem == "adapter hci0 is powered off; discovery starts when it is on")
    discovery.wanted = false
    _ = discovery.next(ready: true, adapter: "hci0", powered: false, retryPending: false)
    #expect(discovery.problem == nil)
  }

  @Test func aFailureIsNewOnlyWhenItDiffersFromTheLastOne() {
    var discovery = BlueZDiscovery()
    discovery.calling()
    #expect(Self.fail(&discovery, "StartDiscovery failed: NotReady; trying again"))
    #expect(!discovery.callInFlight)
    #expect(!Self.fail(&discovery, "StartDiscovery failed: NotReady; trying again"))
    #expect(Self.fail(&discovery, "SetDiscoveryFilter failed: Busy; trying again"))
    discovery.forget()
    #expect(discovery.problem == nil)
  }
}
