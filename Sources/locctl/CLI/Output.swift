import LocHost

/// locctl's standard output: one buffer written with write(2) when it holds 64 KiB, when a
/// command asks (a live stream shows each line at once) and at exit. Everything locctl prints
/// goes through it, so nothing is reordered; a stream of a million lines costs a few dozen
/// system calls.
enum Output {
  /// Bytes waiting to be written.
  nonisolated(unsafe) static var buffer: [UInt8] = {
    var b: [UInt8] = []
    b.reserveCapacity(capacity + 4096)
    return b
  }()
  /// Written once the buffer holds this much.
  static let capacity = 1 << 16

  /// Appends `text`.
  static func write(_ text: String) {
    var text = text
    text.withUTF8 { buffer.append(contentsOf: $0) }
    if buffer.count >= capacity { flush() }
  }

  /// Appends `text` and a newline.
  static func line(_ text: String) {
    write(text)
    append(0x0A)
  }

  /// Appends one byte.
  @inline(__always)
  static func append(_ byte: UInt8) {
    buffer.append(byte)
  }

  /// Appends bytes.
  static func append(_ bytes: UnsafeRawBufferPointer) {
    buffer.append(contentsOf: bytes)
    if buffer.count >= capacity { flush() }
  }

  /// Writes what is buffered, then `bytes` (a command's own buffer), whole.
  static func write(bytes: UnsafeRawBufferPointer) {
    flush()
    writeAll(bytes)
  }

  /// Writes what is buffered, whole (short writes and EINTR retried). A reader that went
  /// away ends the process as SIGPIPE does for any filter (`locctl tz - | head`); should
  /// SIGPIPE be ignored, EPIPE ends it quietly too: the output is no longer wanted.
  static func flush() {
    guard !buffer.isEmpty else { return }
    buffer.withUnsafeBytes { writeAll($0) }
    buffer.removeAll(keepingCapacity: true)
  }

  /// All of `raw` to standard output (the write-all of Syscalls/); EPIPE ends the process.
  private static func writeAll(_ raw: UnsafeRawBufferPointer) {
    do { try StandardStreams.writeAllOutput(raw) } catch {
      if error.code == Errno.brokenPipe { CurrentProcess.exit(0) }
    }
  }

}

/// Terminal styling, only when standard output is a terminal, NO_COLOR is unset
/// (no-color.org) and `--no-color` was not given.
enum Style {
  /// Whether escapes are written.
  nonisolated(unsafe) static var enabled: Bool =
    StandardStreams.outputIsTerminal && CurrentProcess.environment("NO_COLOR") == nil
  static func bold(_ s: String) -> String { enabled ? "\u{1B}[1m\(s)\u{1B}[0m" : s }
  static func green(_ s: String) -> String { enabled ? "\u{1B}[32m\(s)\u{1B}[0m" : s }
  static func yellow(_ s: String) -> String { enabled ? "\u{1B}[33m\(s)\u{1B}[0m" : s }
  static func red(_ s: String) -> String { enabled ? "\u{1B}[31m\(s)\u{1B}[0m" : s }

  /// `s` safe to print to a terminal: control characters (C0, DEL, C1) and the
  /// bidirectional overrides that reorder what follows become `\u{XX}`, so a name someone
  /// set can neither move the cursor, retitle the window nor hide text.
  static func visible(_ s: String) -> String {
    var out = ""
    for scalar in s.unicodeScalars {
      let v = scalar.value
      if scalar.properties.generalCategory == .control || (0x202A...0x202E).contains(v)
        || (0x2066...0x2069).contains(v)
      {
        out += "\\u{" + String(v, radix: 16, uppercase: true) + "}"
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}
