/// Which hosts of a connecting source (`gpsd://`, `nmea+tcp://`) reach a socket listening on
/// 127.0.0.1, as locd's own faces do (the gpsd face's and the NMEA output's `ListenPort=`), so
/// that a source reading locd itself is caught before it starts (`DaemonConfig.sourceLoops`).
/// The answer is what Linux does, found by connecting each form to a listener on 127.0.0.1
/// (decision 0063):
/// - `127.0.0.1` and `0.0.0.0` (Linux connects an unspecified destination to the local host),
///   in any spelling getaddrinfo(3) reads as one of them with AI_NUMERICHOST (inet_aton's:
///   `127.1`, `0x7f.0.0.1`, `0177.0.0.1`, `2130706433`, `0`);
/// - `::ffff:127.0.0.1` and `::ffff:0.0.0.0`, in any IPv6 spelling (IPv4-mapped: the same
///   IPv4 destinations);
/// - `localhost` (any case, and `localhost.`): the hosts file gives 127.0.0.1, which
///   `StreamConnection` tries in turn if `::1` comes first.
///
/// Not: the other loopback addresses (`127.0.0.2`: a socket bound to 127.0.0.1 does not
/// answer them), `::1` and `::` (IPv6 loopback: the faces listen on IPv4 only), and names
/// other than `localhost` (a pure check resolves nothing; docs/SOURCES.md says so).
public enum LoopbackReach {
  /// Whether connecting to `host` reaches a listener bound to 127.0.0.1.
  public static func reachesLoopbackListener(_ host: String) -> Bool {
    let lowered = host.lowercased()
    if lowered == "localhost" || lowered == "localhost." { return true }
    if let v4 = ipv4(Substring(host)) { return v4 == loopback || v4 == 0 }
    guard let groups = ipv6(Substring(host)), groups[0..<5].allSatisfy({ $0 == 0 }), groups[5] == 0xFFFF
    else { return false }
    let mapped = UInt32(groups[6]) << 16 | UInt32(groups[7])
    return mapped == loopback || mapped == 0
  }

  /// 127.0.0.1.
  static let loopback: UInt32 = 0x7F00_0001

  /// An IPv4 address as inet_aton(3) reads it (which glibc's getaddrinfo uses for a numeric
  /// host): one to four parts, each decimal, octal (a leading 0) or hexadecimal (0x), the
  /// last filling the bytes the others leave; nil for anything else.
  static func ipv4(_ text: Substring) -> UInt32? {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard (1...4).contains(parts.count) else { return nil }
    var values: [UInt32] = []
    for part in parts {
      guard let value = number(part) else { return nil }
      values.append(value)
    }
    var address: UInt32 = 0
    for (i, value) in values.dropLast().enumerated() {
      guard value <= 0xFF else { return nil }
      address |= value << UInt32(8 * (3 - i))
    }
    // The last part fills the bytes left: 8, 16, 24 or 32 bits.
    let lastBits = UInt32(8 * (5 - values.count))
    guard let last = values.last, lastBits == 32 || last < (1 << lastBits) else { return nil }
    return address | last
  }

  /// One part of an inet_aton address: decimal, octal with a leading 0, hexadecimal with 0x;
  /// at most 32 bits.
  private static func number(_ text: Substring) -> UInt32? {
    let lower = text.lowercased()
    if lower.hasPrefix("0x") { return digits(lower.dropFirst(2), radix: 16) }
    if lower.count > 1, lower.hasPrefix("0") { return digits(lower.dropFirst(), radix: 8) }
    return digits(Substring(lower), radix: 10)
  }

  /// `text`, at least one digit of `radix` and nothing else (no sign), as a 32-bit number.
  private static func digits(_ text: Substring, radix: Int) -> UInt32? {
    guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.hexDigitValue.map { $0 < radix } == true })
    else { return nil }
    return UInt32(text, radix: radix)
  }

  /// An IPv6 address (RFC 4291, section 2.2) as eight 16-bit groups: hexadecimal groups, one
  /// `::` for a run of zeros, an optional dotted IPv4 address as the last 32 bits, an optional
  /// `%zone` (ignored); nil for anything else.
  static func ipv6(_ text: Substring) -> [UInt16]? {
    var text = text
    if let percent = text.firstIndex(of: "%") { text = text[..<percent] }
    guard text.contains(":") else { return nil }
    func groups(_ part: Substring, last: Bool) -> [UInt16]? {
      guard !part.isEmpty else { return [] }
      var out: [UInt16] = []
      let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
      for (i, piece) in pieces.enumerated() {
        if last, i == pieces.count - 1, piece.contains(".") {
          // inet_pton takes only four decimal parts here.
          let bytes = piece.split(separator: ".", omittingEmptySubsequences: false)
          guard bytes.count == 4,
            bytes.allSatisfy({
              $0 == "0" || ($0.first != "0" && digits($0, radix: 10).map { $0 <= 255 } == true)
            })
          else { return nil }
          let b = bytes.map { UInt16(UInt8($0)!) }
          out += [b[0] << 8 | b[1], b[2] << 8 | b[3]]
          continue
        }
        guard piece.count <= 4, let value = digits(piece, radix: 16) else { return nil }
        out.append(UInt16(value))
      }
      return out
    }
    // Where `::` stands, if it does (once at most).
    var gap: (head: Substring, tail: Substring)? = nil
    var i = text.startIndex
    while i < text.endIndex {
      let next = text.index(after: i)
      if text[i] == ":", next < text.endIndex, text[next] == ":" {
        guard gap == nil else { return nil }
        gap = (text[..<i], text[text.index(after: next)...])
        i = text.index(after: next)
      } else {
        i = next
      }
    }
    guard let gap else {
      guard let all = groups(text, last: true), all.count == 8 else { return nil }
      return all
    }
    guard let head = groups(gap.head, last: false), let tail = groups(gap.tail, last: true),
      head.count + tail.count < 8
    else { return nil }
    return head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
  }
}
