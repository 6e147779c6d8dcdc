import LocCore

/// Whether a running gpsd has a modem's GPS port open (decision 0055): gpsd reading the NMEA
/// tty that ModemManager would also drive means two programs fighting over one receiver, so
/// locd leaves the GPS to gpsd and says so. Looked for the way the kernel shows it, through
/// LocHost's file calls: each process of /proc whose `comm` is `gpsd`, its open files
/// (/proc/PID/fd, readlink) naming /dev/PORT; where those cannot be read (another user's
/// process: locd's packaged user may not look), its command line (/proc/PID/cmdline,
/// readable by all) naming /dev/PORT, which is how gpsd is given its devices.
enum GpsdPortCheck {
  /// MM_MODEM_PORT_TYPE_GPS (MMModemPortType, ModemManager-enums.h).
  static let gpsPortType: UInt32 = 5

  /// The gpsd found holding a port, and how it was seen.
  struct Holder: Equatable {
    /// Its process id.
    var pid: Int
    /// The device it holds ("/dev/ttyUSB1").
    var device: String
    /// Seen among its open files (true) or on its command line.
    var open: Bool

    /// In status and the log.
    var words: String {
      "gpsd (pid \(pid)) \(open ? "holds" : "was started on") its GPS port \(device); the GPS is left to gpsd"
    }
  }

  /// The gpsd holding one of `ports` (names under /dev, as ModemManager gives them), if any;
  /// `proc` is where the process table is (/proc).
  static func holder(of ports: [String], proc: String = "/proc") -> Holder? {
    guard !ports.isEmpty else { return nil }
    let devices = Set(ports.map { "/dev/" + $0 })
    guard let entries = try? FileIO.directoryEntries(path: proc) else { return nil }
    for entry in entries.sorted() {
      guard let pid = Int(entry), pid > 0 else { continue }
      let base = "\(proc)/\(entry)"
      guard let comm = try? FileIO.read(path: base + "/comm", limit: 64),
        String(decoding: comm, as: UTF8.self).trimmingNewline == "gpsd"
      else { continue }
      if let fds = try? FileIO.directoryEntries(path: base + "/fd") {
        for fd in fds {
          if let target = FileIO.linkTarget(path: base + "/fd/" + fd), devices.contains(target) {
            return Holder(pid: pid, device: target, open: true)
          }
        }
        continue
      }
      guard let cmdline = try? FileIO.read(path: base + "/cmdline", limit: 1 << 16) else { continue }
      for argument in cmdline.split(separator: 0) {
        let word = String(decoding: argument, as: UTF8.self)
        if devices.contains(word) { return Holder(pid: pid, device: word, open: false) }
      }
    }
    return nil
  }
}

extension String {
  fileprivate var trimmingNewline: String { hasSuffix("\n") ? String(dropLast()) : self }
}
