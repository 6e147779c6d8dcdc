/// Reads btsnoop captures (what `btmon -w` and Android's "Bluetooth HCI snoop log" write) from
/// a byte stream fed in chunks of any size, with bounded memory.
///
/// The format (RFC 1761's snoop with Bluetooth datalinks; BlueZ src/shared/btsnoop.h): a
/// 16-byte header — `btsnoop\0`, version 1, datalink — then records, each a 24-byte header
/// (original length, included length, flags, cumulative drops, timestamp; all big-endian)
/// and `included length` bytes of packet. Datalinks read: 1001 (HCI, the packet type in
/// the flags), 1002 (H4/UART, a packet-type byte first) and 2001 (BlueZ monitor, an opcode
/// and controller index in the flags).
///
/// Bounds: a record up to `maxRecordLength` bytes is handed out in place when it lies in one
/// chunk, else assembled in a buffer of at most that size; a longer one (up to the largest
/// HCI packet) is skipped without being held. An included length larger than any HCI packet
/// means the stream is corrupt: btsnoop has no sync marker, so nothing after it can be
/// trusted and reading stops there (as BlueZ's own reader does), counted. A record cut off
/// by the end of input is counted by `finish`.
public struct BTSnoopReader: Sendable {
  /// The datalink types read.
  public enum Datalink: UInt32, Hashable, Sendable {
    /// Un-encapsulated HCI: flags bit 1 = command/event, bit 0 = received.
    case hci = 1001
    /// HCI UART (H4): the first byte of each packet is its type.
    case uart = 1002
    /// BlueZ monitor: flags are controller index << 16 | opcode.
    case monitor = 2001
  }

  /// Why reading stopped before the end of input.
  public enum Failure: Hashable, Sendable, CustomStringConvertible {
    /// The first 8 bytes are not `btsnoop\0`.
    case notBTSnoop
    /// A version other than 1.
    case unsupportedVersion(UInt32)
    /// A datalink other than 1001, 1002, 2001.
    case unsupportedDatalink(UInt32)
    /// Input ended inside the 16-byte file header.
    case shortHeader
    /// A record header with an impossible included length, at this byte offset.
    case corruptRecord(offset: Int)

    public var description: String {
      switch self {
      case .notBTSnoop: return "not a btsnoop file (no btsnoop magic)"
      case .unsupportedVersion(let v): return "unsupported btsnoop version \(v)"
      case .unsupportedDatalink(let d): return "unsupported btsnoop datalink \(d) (read: 1001, 1002, 2001)"
      case .shortHeader: return "file ends inside the btsnoop header"
      case .corruptRecord(let o): return "corrupt record header at byte \(o), reading stopped"
      }
    }
  }

  /// What the reader has seen. Counters only grow.
  public struct Counters: Hashable, Sendable {
    /// Records read whole (handed out or skipped for size).
    public var records = 0
    /// Records longer than `maxRecordLength`, skipped unread.
    public var oversizedRecords = 0
    /// Records whose included length is below the original (clipped by the capturer).
    public var clippedRecords = 0
    /// Records whose included length is above the original (kept: the file holds them).
    public var inconsistentLengths = 0
    /// Records with a timestamp outside years 0001...9999, skipped.
    public var badTimestamps = 0
    /// Empty H4 records (no packet-type byte), skipped.
    public var emptyRecords = 0
    /// A record cut off by the end of input.
    public var truncatedRecords = 0
    /// Bytes not read after reading stopped (bad header or corrupt record).
    public var ignoredBytes = 0
    /// The capturer's cumulative count of packets it dropped (the last record's value).
    public var capturerDrops = 0

    /// All zero.
    public init() {}
  }

  /// The H4 packet-type bytes (Core 5.4, Vol 4, Part A, 2) and BlueZ monitor opcodes map to this.
  public enum PacketType: Hashable, Sendable {
    /// An HCI command (host to controller).
    case command
    /// An HCI event (controller to host).
    case event
    /// ACL data.
    case acl
    /// SCO data.
    case sco
    /// ISO data.
    case iso
    /// Anything else (monitor notes, index events, vendor packets, unknown H4 types).
    case other
  }

  /// One record's header; its packet is passed next to it.
  public struct Record: Hashable, Sendable {
    /// When the packet was captured.
    public var time: Instant
    /// What the packet is.
    public var packetType: PacketType
    /// The controller index (monitor datalink; 0 for the others).
    public var controllerIndex: UInt16
    /// Whether the capturer clipped the packet (included length below the original).
    public var clipped: Bool
  }

  /// The largest HCI packet plus its H4 type byte: an ACL packet (4-byte header, 65,535
  /// bytes of data; Core 5.4, Vol 4, Part E, 5.4.2) and one. Above it a length is corrupt.
  public static let largestPacket = 1 + 4 + 65_535
  /// The default bound for a record held in memory: an HCI event is at most 2 + 255 bytes
  /// (Vol 4, Part E, 5.4.4), BlueZ's reader takes up to 1490; beacons need only events.
  public static let defaultMaxRecordLength = 1490
  /// The offset from btsnoop timestamps to Unix microseconds. btsnoop counts microseconds
  /// from "0 AD"; BlueZ writes `(tv_sec - 946684800) * 1000000 + tv_usec + 0x00E03AB44A676000`
  /// (src/shared/btsnoop.c): 0x00E03AB44A676000 is 2000-01-01 and 946684800 s is 2000-01-01
  /// in Unix time.
  public static let unixEpochOffset: Int64 = 0x00E0_3AB4_4A67_6000 - 946_684_800 * 1_000_000
  /// The largest timestamp read: 9999-12-31T23:59:59.999999Z.
  static let maxTimestamp: UInt64 = UInt64(unixEpochOffset) + 253_402_300_800_000_000 - 1

  /// The longest record handed out; longer ones are skipped.
  public let maxRecordLength: Int
  /// Counters.
  public private(set) var counters = Counters()
  /// The datalink, once the header is read.
  public private(set) var datalink: Datalink?
  /// Why reading stopped early, if it did.
  public private(set) var failure: Failure?

  private enum Phase: Sendable {
    case fileHeader
    case recordHeader
    /// Holding a record's packet: `want` bytes in all, some already in `buffer`.
    case assembling(want: Int)
    /// Skipping an oversized record's remaining bytes.
    case skipping(remaining: Int)
    case stopped
  }

  private var phase = Phase.fileHeader
  /// Header bytes gathered across chunks (16 for the file header, 24 for a record's).
  private var header: [UInt8] = []
  /// The current record's header fields once parsed.
  private var pending = PendingRecord()
  private var buffer: [UInt8] = []
  /// Bytes consumed so far (for error offsets).
  private var offset = 0

  private struct PendingRecord: Sendable {
    var time = Instant(microsecondsSinceEpoch: 0)
    var flags: UInt32 = 0
    var clipped = false
    var skip = false
  }

  /// A reader; records longer than `maxRecordLength` are skipped.
  public init(maxRecordLength: Int = defaultMaxRecordLength) {
    precondition(maxRecordLength >= 260 && maxRecordLength <= Self.largestPacket, "record bound out of range")
    self.maxRecordLength = maxRecordLength
    header.reserveCapacity(24)
  }

  /// Feeds bytes; calls `body` once per record with its header and its HCI packet (without
  /// the H4 type byte), in order. The packet's memory is valid only during the call.
  public mutating func feed(
    _ bytes: UnsafeRawBufferPointer, _ body: (Record, UnsafeRawBufferPointer) -> Void
  ) {
    var i = 0
    let n = bytes.count
    while i < n {
      switch phase {
      case .stopped:
        counters.ignoredBytes += n - i
        offset += n - i
        return
      case .fileHeader:
        i += gather(bytes, from: i, upTo: 16)
        if header.count == 16 { readFileHeader() }
      case .recordHeader:
        if header.isEmpty && n - i >= 24 {
          // The common case: the whole header lies in this chunk.
          let h = UnsafeRawBufferPointer(rebasing: bytes[i..<(i + 24)])
          i += 24
          offset += 24
          i += startRecord(h, rest: UnsafeRawBufferPointer(rebasing: bytes[i...]), body)
        } else {
          i += gather(bytes, from: i, upTo: 24)
          guard header.count == 24 else { continue }
          // Moved out of `self` while `startRecord` mutates it (exclusive access).
          var h: [UInt8] = []
          swap(&h, &header)
          i += h.withUnsafeBytes {
            startRecord($0, rest: UnsafeRawBufferPointer(rebasing: bytes[i...]), body)
          }
          h.removeAll(keepingCapacity: true)
          header = h
        }
      case .assembling(let want):
        let take = min(want - buffer.count, n - i)
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[i..<(i + take)]))
        i += take
        offset += take
        if buffer.count == want {
          var b: [UInt8] = []
          swap(&b, &buffer)
          b.withUnsafeBytes { deliver($0, body) }
          b.removeAll(keepingCapacity: true)
          buffer = b
        }
      case .skipping(let remaining):
        let take = min(remaining, n - i)
        i += take
        offset += take
        if take == remaining {
          counters.records += 1
          phase = .recordHeader
        } else {
          phase = .skipping(remaining: remaining - take)
        }
      }
    }
  }

  /// Ends the input: a record or header left incomplete is counted.
  public mutating func finish() {
    switch phase {
    case .fileHeader:
      failure = .shortHeader
    case .recordHeader:
      if !header.isEmpty { counters.truncatedRecords += 1 }
    case .assembling, .skipping:
      counters.truncatedRecords += 1
    case .stopped:
      break
    }
    header.removeAll()
    buffer.removeAll()
    phase = .stopped
  }

  /// Appends bytes from `bytes[from...]` to `header` until it holds `count`; returns how many.
  private mutating func gather(_ bytes: UnsafeRawBufferPointer, from: Int, upTo count: Int) -> Int {
    let take = min(count - header.count, bytes.count - from)
    header.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[from..<(from + take)]))
    offset += take
    return take
  }

  private mutating func readFileHeader() {
    let magic: [UInt8] = [0x62, 0x74, 0x73, 0x6E, 0x6F, 0x6F, 0x70, 0x00]  // "btsnoop\0"
    let isBTSnoop = header.prefix(8).elementsEqual(magic)
    let version = header.withUnsafeBytes { Self.be32($0, 8) }
    let link = header.withUnsafeBytes { Self.be32($0, 12) }
    header.removeAll(keepingCapacity: true)
    if !isBTSnoop {
      stop(.notBTSnoop)
    } else if version != 1 {
      stop(.unsupportedVersion(version))
    } else if let d = Datalink(rawValue: link) {
      datalink = d
      phase = .recordHeader
    } else {
      stop(.unsupportedDatalink(link))
    }
  }

  private mutating func stop(_ reason: Failure) {
    failure = reason
    phase = .stopped
  }

  /// Parses a record header `h` and handles its packet if it lies whole in `rest`; returns
  /// how many bytes of `rest` it used.
  private mutating func startRecord(
    _ h: UnsafeRawBufferPointer, rest: UnsafeRawBufferPointer,
    _ body: (Record, UnsafeRawBufferPointer) -> Void
  ) -> Int {
    let original = Int(Self.be32(h, 0))
    let included = Int(Self.be32(h, 4))
    let flags = Self.be32(h, 8)
    counters.capturerDrops = Int(Self.be32(h, 12))
    let stamp = Self.be64(h, 16)
    guard included <= Self.largestPacket else {
      stop(.corruptRecord(offset: offset - 24))
      counters.ignoredBytes += rest.count
      offset += rest.count
      return rest.count
    }
    if included > original { counters.inconsistentLengths += 1 }
    pending.flags = flags
    pending.clipped = included < original
    pending.skip = stamp > Self.maxTimestamp
    pending.time = Instant(microsecondsSinceEpoch: pending.skip ? 0 : Int64(stamp) - Self.unixEpochOffset)
    if included > maxRecordLength {
      counters.oversizedRecords += 1
      phase = .skipping(remaining: included)
      return 0
    }
    if included <= rest.count {
      deliver(UnsafeRawBufferPointer(rebasing: rest[0..<included]), body)
      offset += included
      return included
    }
    phase = .assembling(want: included)
    return 0
  }

  /// Counts a whole record and hands its packet to `body` unless it is to be skipped.
  private mutating func deliver(
    _ packet: UnsafeRawBufferPointer, _ body: (Record, UnsafeRawBufferPointer) -> Void
  ) {
    counters.records += 1
    phase = .recordHeader
    if pending.clipped { counters.clippedRecords += 1 }
    if pending.skip {
      counters.badTimestamps += 1
      return
    }
    var type = PacketType.other
    var index: UInt16 = 0
    var payload = packet
    switch datalink {
    case .uart?:
      guard let first = packet.first else {
        counters.emptyRecords += 1
        return
      }
      type = Self.h4Types[Int(min(first, 6))]
      payload = UnsafeRawBufferPointer(rebasing: packet[1...])
    case .hci?:
      // Bit 1: command or event (else data); bit 0: received (else sent).
      switch pending.flags & 3 {
      case 3: type = .event
      case 2: type = .command
      default: type = .acl
      }
    case .monitor?:
      index = UInt16(truncatingIfNeeded: pending.flags >> 16)
      type = Self.monitorTypes[Int(min(pending.flags & 0xFFFF, 20))]
    case nil:
      return
    }
    body(
      Record(time: pending.time, packetType: type, controllerIndex: index, clipped: pending.clipped), payload)
  }

  /// H4 packet types 0x00...0x05 (0 and above 5 are not HCI packets).
  private static let h4Types: [PacketType] = [.other, .command, .acl, .sco, .event, .iso, .other]
  /// BlueZ monitor opcodes 0...19 (src/shared/btsnoop.h); 20 stands for all others.
  private static let monitorTypes: [PacketType] = [
    .other, .other, .command, .event, .acl, .acl, .sco, .sco, .other, .other, .other, .other, .other,
    .other, .other, .other, .other, .other, .iso, .iso, .other,
  ]

  @inline(__always) static func be32(_ p: UnsafeRawBufferPointer, _ o: Int) -> UInt32 {
    UInt32(p[o]) << 24 | UInt32(p[o + 1]) << 16 | UInt32(p[o + 2]) << 8 | UInt32(p[o + 3])
  }

  @inline(__always) static func be64(_ p: UnsafeRawBufferPointer, _ o: Int) -> UInt64 {
    UInt64(be32(p, o)) << 32 | UInt64(be32(p, o + 4))
  }
}
