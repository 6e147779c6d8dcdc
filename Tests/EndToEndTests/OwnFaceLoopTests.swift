import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// A source pointed at one of locd's own faces would read locd's positions back and hold the
/// receiver open for itself: `locd --check-config` and the start refuse it, naming the loop;
/// the default source is not used when the gpsd face takes gpsd's port (decision 0063).
@Suite struct OwnFaceLoopTests {
  @Test func checkConfigAndStartRefuseASourceReadingTheGpsdFace() throws {
    let dir = LocdProcess.makeDirectory()
    let port = freePort()
    let config =
      "[Gpsd]\nEnable=yes\nSocket=\(dir)/gpsd.sock\nListenPort=\(port)\n[Sources]\nSource=gpsd://127.0.0.1:\(port)\n"
    let path = dir + "/locd.conf"
    try config.write(toFile: path, atomically: true, encoding: .utf8)
    let loop =
      "\(path): source gpsd://127.0.0.1:\(port) would read locd's own gpsd face ([Gpsd] ListenPort=\(port)): "
    let check = try run(Binaries.locd, ["--config", path, "--check-config"])
    #expect(check.status == 1)
    #expect(check.stderr.contains(loop), "\(check.stderr)")
    // Started (as the unit would start it): it exits with the words, before serving anything.
    let daemon = try LocdProcess(directory: dir, config: config, wait: false)
    #expect(daemon.child.wait(timeout: 10) == 78)  // EX_CONFIG, as for any configuration error
    #expect(daemon.log.contains(loop), "\(daemon.log)")
    #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
  }

  @Test func theNMEAOutputsPortAndPtyAreLoopsToo() throws {
    let dir = LocdProcess.makeDirectory()
    let port = freePort()
    let path = dir + "/locd.conf"
    try "[NMEAOut]\nEnable=yes\nLink=\(dir)/nmea0\nListenPort=\(port)\n".write(
      toFile: path, atomically: true, encoding: .utf8)
    // From the command line: the words have no file name.
    for (source, face) in [
      ("nmea+tcp://localhost:\(port)", "locd's own NMEA output ([NMEAOut] ListenPort=\(port))"),
      ("gpsd://0.0.0.0:\(port)", "locd's own NMEA output ([NMEAOut] ListenPort=\(port))"),
      ("serial:\(dir)/nmea0?baud=4800", "locd's own NMEA output ([NMEAOut] Link=\(dir)/nmea0)"),
    ] {
      let check = try run(Binaries.locd, ["--config", path, "--check-config", "--source", source])
      #expect(check.status == 1, "\(source)")
      #expect(check.stderr.hasPrefix("source \(source) would read \(face): "), "\(check.stderr)")
    }
    // Another port is fine.
    let other = try run(
      Binaries.locd, ["--config", path, "--check-config", "--source", "nmea+tcp://127.0.0.1:1"])
    #expect(other.status == 0, "\(other.stderr)")
  }

  @Test(
    .enabled(if: getuid() == 0, "needs root: a private network and mount namespace"),
    .enabled(if: PrivateHost.installed, "needs unshare, nsenter, ip and mount"),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gpspipe"), "needs gpspipe"))
  func theGpsdFaceOnGpsdsPortReplacesTheDefaultSource() throws {
    let dir = LocdProcess.makeDirectory()
    // Port 2947, where libgps clients look: in a private network, so no other test's locd
    // (whose default source is 127.0.0.1:2947) can meet this face.
    let config = "[Gpsd]\nEnable=yes\nSocket=\(dir)/gpsd.sock\nListenPort=2947\n"
    let check = try run(Binaries.locd, ["--config", try write(config, in: dir), "--check-config"])
    #expect(check.status == 0, "\(check.stderr)")
    #expect(
      check.stdout.contains(
        "no source: the default gpsd://127.0.0.1:2947 would read locd's own gpsd face ([Gpsd] ListenPort=2947)"
      ),
      "\(check.stdout)")
    let daemon = try LocdProcess(directory: dir, config: config, launcher: PrivateHost.launcher)
    let status = try daemon.status()
    #expect(status.gpsd?.endpoints.contains("127.0.0.1:2947") == true, "\(daemon.log)")
    #expect(status.sources.isEmpty, "\(status.sources.map(\.uri))")
    #expect(
      status.position.reason?.hasPrefix(
        "no source: the default gpsd://127.0.0.1:2947 would read locd's own gpsd face ([Gpsd] ListenPort=2947), "
          + "which stands in for gpsd; set Source= to the receiver") == true,
      "\(status.position.reason ?? "")")
    // A gpsd client on the face sees no device: locd does not read itself.
    let (program, arguments) = PrivateHost.enter(
      daemon.pid, ["/usr/bin/gpspipe", "-w", "-n", "3", "127.0.0.1:2947"])
    let pipe = try run(URL(fileURLWithPath: program), arguments, timeout: 20)
    let devices = pipe.stdout.split(whereSeparator: \.isNewline).compactMap { try? JSON.parse(String($0)) }
      .first { $0["class"]?.string == "DEVICES" }
    #expect(devices?["devices"] == .array([]), "\(pipe.stdout)")
    #expect(daemon.stop() == 0)
  }

  /// Writes `config` to DIR/check.conf; its path.
  func write(_ config: String, in dir: String) throws -> String {
    let path = dir + "/check.conf"
    try config.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }
}
