import Foundation
import Glibc
import LocCore
import LocProtocol
import Testing

/// What a client asks of the daemon rather than of the fix (VERSION, DEVICES, `?DEVICE;`,
/// POLL's `active`), answered by gpsd 3.22 and by locd's gpsd face for the same receiver on a
/// serial line (issue 42, item 4). The receiver stand-in writes the same cycle each second to
/// two pseudo-terminals at their default speed (38400 bps): gpsd reads one (`-n`: opened at
/// start), locd the other (`serial:` at 38400, `Policy=continuous`: opened at start too). One
/// client script asks both the same questions in the same order; the expectations are gpsd's
/// answers, compared member by member.
@Suite(.serialized) struct GpsdDeviceTests {
  /// Two ptys (their names printed, gpsd's first), one GGA, GSA and RMC a second to both.
  static let feeder = """
    import functools, os, time, tty
    pairs = [os.openpty() for _ in range(2)]
    for m, s in pairs:
        tty.setraw(m)
        print(os.ttyname(s), flush=True)
    def sentence(body):
        return ("$%s*%02X\\r\\n" % (body, functools.reduce(lambda a, c: a ^ ord(c), body, 0))).encode()
    while True:
        time.sleep(1 - time.time() % 1 + 0.1)
        t, d = time.strftime("%H%M%S", time.gmtime()), time.strftime("%d%m%y", time.gmtime())
        cycle = (sentence("GPGGA,%s.00,3854.931,N,00658.420,W,1,08,0.9,190.0,M,50.0,M,," % t)
            + sentence("GPGSA,A,3,04,05,09,12,,,,,,,,,2.5,1.3,2.1")
            + sentence("GPRMC,%s.00,A,3854.931,N,00658.420,W,0.5,54.7,%s,,,A" % (t, d)))
        for m, _ in pairs:
            os.write(m, cycle)
    """

  /// The client: for each daemon (argv: name port ...), the greeting; DEVICES once the device
  /// has sent data (flags 1); POLL before any WATCH; the answer to `?DEVICE;` (every line
  /// before the VERSION asked after it); then a WATCH, its first TPV with a fix, and POLL.
  /// Prints one JSON object a daemon: `name {...}`. Some commands end with a newline, as libgps
  /// and python3-gps send them, the two before the WATCH without one: gpsd acts on the commands
  /// a read brings, newline or not.
  static let client = """
    import json, socket, sys, time
    def talk(port):
        c = socket.create_connection(("127.0.0.1", port), timeout=30)
        f = c.makefile("r", encoding="utf-8", newline="\\n")
        def line():
            return json.loads(f.readline())
        def until(cls):
            seen = []
            while True:
                o = line()
                if o.get("class") == cls:
                    return o, seen
                seen.append(o)
        out = {"version": line()}
        deadline = time.time() + 30
        while True:
            c.sendall(b"?DEVICES;\\n")
            d, _ = until("DEVICES")
            if any(x.get("flags") == 1 for x in d["devices"]) or time.time() > deadline:
                break
            time.sleep(0.2)
        out["devices"] = d
        c.sendall(b"?POLL;")
        out["pollBefore"], _ = until("POLL")
        c.sendall(b"?DEVICE;?VERSION;")
        _, out["device"] = until("VERSION")
        c.sendall(b'?WATCH={"enable":true,"json":true};\\n')
        while True:
            o, _ = until("TPV")
            if o.get("mode", 0) >= 2:
                break
        c.sendall(b"?POLL;\\n")
        out["pollAfter"], _ = until("POLL")
        return out
    for name, port in zip(sys.argv[1::2], sys.argv[2::2]):
        print(name, json.dumps(talk(int(port))), flush=True)
    """

  /// Starts the feeder with its output in `dir`; returns it and the two pseudo-terminals it
  /// printed (gpsd's, then locd's).
  static func startFeeder(_ dir: String) throws -> (Child, [String]) {
    let feederOut = dir + "/feeder.out"
    let out = open(feederOut, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    let feeder = try Child("/usr/bin/python3", ["-c", feeder], stdoutFD: out)
    close(out)
    do {
      let text = try waitForFile(feederOut) { $0.split(separator: "\n").count == 2 }
      return (feeder, text.split(separator: "\n").map(String.init))
    } catch {
      stop(feeder)
      throw error
    }
  }

  static func stop(_ feeder: Child) {
    kill(feeder.pid, SIGTERM)
    feeder.wait(timeout: 5)
  }

  @Test(.enabled(if: getuid() == 0, "gpsd -n opens the pty as root"))
  func answersAboutTheDaemonAsGpsdDoes() throws {
    let dir = LocdProcess.makeDirectory()
    let (feeder, ptys) = try Self.startFeeder(dir)
    defer { Self.stop(feeder) }
    let gpsdPort = freePort()
    let gpsdLog = open(dir + "/gpsd.log", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    let gpsd = try Child(
      "/usr/sbin/gpsd", ["-N", "-n", "-S", "\(gpsdPort)", "-F", dir + "/gpsd-control.sock", ptys[0]],
      stderrFD: gpsdLog)
    close(gpsdLog)
    defer {
      kill(gpsd.pid, SIGTERM)
      gpsd.wait(timeout: 5)
    }
    let port = freePort()
    let daemon = try LocdProcess(
      arguments: ["--source", "serial:\(ptys[1])?baud=38400"], directory: dir,
      config:
        "[Acquisition]\nPolicy=continuous\n[Gpsd]\nEnable=yes\nSocket=\(dir)/gpsd.sock\nListenPort=\(port)\n")
    let talk = try run(
      URL(fileURLWithPath: "/usr/bin/python3"),
      ["-c", Self.client, "gpsd", "\(gpsdPort)", "locd", "\(port)"])
    #expect(talk.status == 0, "\(talk.stderr)")
    var answers: [String: JSON] = [:]
    for line in talk.stdout.split(separator: "\n") {
      guard let space = line.firstIndex(of: " ") else { continue }
      answers[String(line[..<space])] = try JSON.parse(String(line[line.index(after: space)...]))
    }
    let theirs = try #require(answers["gpsd"], "\(talk.stdout)")
    let ours = try #require(answers["locd"], "\(talk.stdout)")
    print("gpsd: \(theirs)\nlocd: \(ours)")

    // VERSION: gpsd's release and protocol (cgps warns on another release); locd in `rev`.
    for key in ["class", "release", "proto_major", "proto_minor"] {
      #expect(ours["version"]?[key] == theirs["version"]?[key], "VERSION \(key)")
    }
    #expect(ours["version"]?["rev"]?.string?.hasPrefix("locd ") == true)

    // DEVICES: one device each, with gpsd's members for a serial line; the line's settings
    // equal (both ptys at 38400 bps, 8N1; the NMEA driver's 1 s cycle).
    let mine = try #require(ours["devices"]?["devices"]?.array?.first)
    let gpsds = try #require(theirs["devices"]?["devices"]?.array?.first)
    #expect(Set(mine.object?.keys ?? []) == Set(gpsds.object?.keys ?? []), "\(mine) \(gpsds)")
    for key in ["class", "driver", "flags", "native", "bps", "parity", "stopbits", "cycle"] {
      #expect(mine[key] == gpsds[key], "DEVICE \(key): \(mine) \(gpsds)")
    }

    // `active`: 0 before this client watches, though the device is open and sending; 1 once
    // it watches.
    #expect(ours["pollBefore"]?["active"] == theirs["pollBefore"]?["active"], "\(ours) \(theirs)")
    #expect(theirs["pollBefore"]?["active"] == .int(0))
    #expect(ours["pollAfter"]?["active"] == theirs["pollAfter"]?["active"], "\(ours) \(theirs)")

    // `?DEVICE;`: a DEVICE report for the device, not DEVICES.
    let answered = ours["device"]?.array?.map { $0["class"] } ?? []
    #expect(answered == (theirs["device"]?.array?.map { $0["class"] } ?? []), "\(ours) \(theirs)")
    #expect(answered == [.string("DEVICE")])
    _ = daemon
  }

  /// At `baud=auto` DEVICE's `bps` is the speed locd's hunt settled on. A pseudo-terminal
  /// carries bytes at whatever speed its termios says, so the hunt's first speed already
  /// reads NMEA: `SourceURI.autoBaudRates.first` (9600), and the line's other members as for a
  /// fixed speed (gpsd's for a tty, the test above).
  @Test func aHuntedSpeedIsTheOneFound() throws {
    let dir = LocdProcess.makeDirectory()
    let (feeder, ptys) = try Self.startFeeder(dir)
    defer { Self.stop(feeder) }
    let pty = ptys[1]
    let port = freePort()
    let daemon = try LocdProcess(
      arguments: ["--source", "serial:\(pty)?baud=auto"], directory: dir,
      config:
        "[Acquisition]\nPolicy=continuous\n[Gpsd]\nEnable=yes\nSocket=\(dir)/gpsd.sock\nListenPort=\(port)\n")
    let talk = try run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", Self.client, "locd", "\(port)"])
    #expect(talk.status == 0, "\(talk.stderr)")
    let line = try #require(talk.stdout.split(separator: "\n").first { $0.hasPrefix("locd ") })
    let answers = try JSON.parse(String(line.dropFirst(5)))
    let device = try #require(answers["devices"]?["devices"]?.array?.first)
    #expect(device["bps"] == .int(SourceURI.autoBaudRates[0]), "\(device)")
    #expect(device["parity"] == .string("N") && device["stopbits"] == .int(1), "\(device)")
    _ = daemon
  }
}
