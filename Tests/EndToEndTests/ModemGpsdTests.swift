import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// No fight with gpsd: a real gpsd (Debian's gpsd 3.22) started on a pseudo-terminal the
/// test makes, which the ModemManager STAND-IN (ModemStandIn.swift; not ModemManager, which
/// needs a modem) names as its modem's GPS port (Ports, type 5). locd finds gpsd holding it
/// in the real /proc, leaves the GPS alone and says so; gpsd gone, it takes the GPS.
@Suite(.serialized) struct ModemGpsdTests {
  static let gpsd = "/usr/sbin/gpsd"

  /// gpsd on `device`, in the foreground, its control socket and port its own.
  final class Gpsd {
    let child: Child
    init(device: String, directory: String) throws {
      let port = 20_000 + Int(getpid() % 20_000)
      child = try Child(
        ModemGpsdTests.gpsd, ["-N", "-n", "-S", "\(port)", "-F", directory + "/gpsd.sock", device])
      // gpsd opens the device with -n at once; wait until /proc shows it.
      for _ in 0..<200 {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(child.pid)/fd")) ?? []
        if fds.contains(where: {
          (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child.pid)/fd/\($0)"))
            == device
        }) {
          return
        }
        usleep(25_000)
      }
      throw HarnessError("gpsd did not open \(device)")
    }

    func stop() {
      kill(child.pid, SIGTERM)
      child.wait(timeout: 10)
    }

    deinit { stop() }
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns its name, which the policy gives root only"),
    .enabled(if: ModemStandIn.installed, "needs dbus-daemon, busctl, python3-dbus and modemmanager-dev"),
    .enabled(if: FileManager.default.isExecutableFile(atPath: gpsd), "needs gpsd"))
  func aModemWhoseGPSPortARunningGpsdHoldsIsReportedAndNotGrabbed() throws {
    let tty = try FakeSerialDevice()
    let port = String(tty.path.dropFirst("/dev/".count))
    let gpsd = try Gpsd(device: tty.path, directory: LocdProcess.makeDirectory())
    let rig = try ModemSourceTests.Rig { mm in
      try mm.addModem(
        0, equipment: ModemSourceTests.imei, capabilities: ModemStandIn.gpsNMEA,
        ports: [("cdc-wdm0", 6), ("ttyUSB2", 3), (port, 5)])
    }
    let s = try rig.locd.waitForStatus(timeout: 20) {
      $0.sources.first?.fault?.kind == .known(.gpsdHoldsPort)
    }
    let source = try #require(s.sources.first)
    #expect(source.lastError?.contains("gpsd (pid \(gpsd.child.pid)) holds its GPS port \(tty.path)") == true)
    #expect(source.fault?.reason.contains("left to gpsd") == true, "\(String(describing: source.fault))")
    #expect(s.sourceState() == .known(.starting) && s.counters()["gpsdHeld"] == 1)
    #expect(!rig.mm.setups.contains { $0.sources & ModemStandIn.gpsNMEA != 0 }, "\(rig.mm.setups)")
    let text = try rig.locd.locctl(["status"]).stdout
    #expect(text.contains("left to gpsd"), "\(text)")
    // gpsd stopped: within the 5 s check, locd takes the GPS, and its fixes come.
    gpsd.stop()
    let after = try rig.locd.waitForStatus(timeout: 30) { ($0.counters()["fixes"] ?? 0) >= 1 }
    #expect(after.sources.first?.fault?.kind != .known(.gpsdHoldsPort))
    #expect(rig.mm.setups.contains { $0.sources & ModemStandIn.gpsNMEA != 0 })
    #expect(rig.locd.stop() == 0)
  }

  @Test(
    .enabled(if: getuid() == 0, "the stand-in owns its name, which the policy gives root only"),
    .enabled(if: ModemStandIn.installed, "needs dbus-daemon, busctl, python3-dbus and modemmanager-dev"))
  func aGPSPortNobodyHoldsIsUsed() throws {
    let tty = try FakeSerialDevice()
    let rig = try ModemSourceTests.Rig { mm in
      try mm.addModem(
        0, equipment: ModemSourceTests.imei, capabilities: ModemStandIn.gpsNMEA,
        ports: [(String(tty.path.dropFirst("/dev/".count)), 5)])
    }
    let s = try rig.locd.waitForStatus(timeout: 30) { ($0.counters()["fixes"] ?? 0) >= 1 }
    #expect(s.counters()["gpsdHeld"] == 0 && rig.mm.setups.first?.sources == ModemStandIn.gpsNMEA)
    #expect(rig.locd.stop() == 0)
  }
}
