/// One sample for chrony's SOCK refclock (chrony.conf: `refclock SOCK PATH`): when a fix was
/// read on this machine's clock and how far the receiver's UTC time is from it, laid out as
/// the datagram chronyd reads (its `struct sock_sample`: a `struct timeval`, the offset in
/// seconds as a double, then four ints: pulse, leap, padding, and the magic number).
public struct ChronySample: Sendable, Hashable {
  /// `SOCK` in ASCII: chronyd drops a datagram without it.
  public static let magic: Int32 = 0x534f_434b

  /// This machine's clock when the fix was read.
  public var readAt: Instant
  /// The receiver's time of the fix (UTC).
  public var receiverTime: Instant

  /// A sample of `receiverTime` read at `readAt`.
  public init(readAt: Instant, receiverTime: Instant) {
    self.readAt = readAt
    self.receiverTime = receiverTime
  }

  /// The receiver's time minus this machine's, in seconds: what chrony takes as the true
  /// time's offset from the system clock at `readAt` (before its own `offset` correction).
  public var offset: Double {
    Double(receiverTime.microsecondsSinceEpoch - readAt.microsecondsSinceEpoch) / 1e6
  }

  /// The datagram, for a C library whose `struct timeval` is `timevalSize` bytes (16 where
  /// time_t and suseconds_t are 64-bit, 8 on 32-bit ones), in this machine's byte order.
  /// `pulse` is 0 (the sample carries whole seconds, it is not a PPS edge) and `leap` 0
  /// (NMEA does not announce leap seconds).
  public func bytes(timevalSize: Int) -> [UInt8] {
    let field = timevalSize / 2
    var out: [UInt8] = []
    out.reserveCapacity(timevalSize + 24)
    let micros = readAt.microsecondsSinceEpoch
    let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
    let fraction = micros - seconds * 1_000_000
    func integer(_ value: Int64, size: Int) {
      withUnsafeBytes(of: value) { raw in
        // The low `size` bytes of a little- or big-endian 64-bit number.
        let start = UInt16(1).littleEndian == 1 ? 0 : 8 - size
        out.append(contentsOf: raw[start..<start + size])
      }
    }
    integer(seconds, size: field)
    integer(fraction, size: field)
    // The double is aligned to 8 bytes after the timeval (it is, for both sizes).
    withUnsafeBytes(of: offset) { out.append(contentsOf: $0) }
    for value in [Int32(0), 0, 0, ChronySample.magic] {
      withUnsafeBytes(of: value) { out.append(contentsOf: $0) }
    }
    return out
  }
}
