import LocCore

/// The device of a `SerialSource`: its path, the descriptor while it is open (owned by its
/// loop watch; closing is dropping the watch), and the reads from it (`SerialPort` does the
/// calls).
final class SerialDevice {
  /// The device's path, perhaps a udev symlink.
  let path: String
  /// The open device, owned by its watch.
  private(set) var watch: IOWatch?
  /// The owner of the device file opened last (fstat(2) of the open device, so a udev link
  /// is followed to the device itself); nil before an open or when fstat failed. A
  /// pseudo-terminal belongs to whoever opened its master: the user who feeds it.
  private(set) var owner: UInt32?
  /// Reads of 4 KiB, at most 64 KiB per wakeup (a 460,800 baud line brings 46 KB a second).
  let reader = ReadBuffer(chunkSize: 4096, maxBytesPerWakeup: 16 * 4096)

  /// The device at `path`, not opened.
  init(path: String) {
    self.path = path
  }

  /// Opens the device in raw mode at `baud` and watches it on `loop` for input; true when it
  /// is a terminal (anything else is read as it is). Closed again if any step fails.
  func open(baud: Int, on loop: EventLoop, _ handler: @escaping (UInt32) -> Void) throws(Errno) -> Bool {
    do throws(Errno) {
      let device = try SerialPort.open(path)
      owner = try? device.status().owner
      let isTerminal = try SerialPort.configure(device, baud: baud)
      watch = try loop.watch(device, events: Epoll.input, handler)
      return isTerminal
    } catch {
      close()
      throw error
    }
  }

  /// Sets the open device's speed.
  func setSpeed(_ baud: Int) throws(Errno) {
    guard let watch else { return }
    try SerialPort.configure(watch.descriptor, baud: baud)
  }

  /// Closes the device if it is open.
  func close() {
    watch?.cancel()
    watch = nil  // closes the device
  }
}
