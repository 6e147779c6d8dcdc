/// Whether a VPN-like interface carries the default route, from the kernel's routing files
/// (proc(5)): IP-only lookups are never sent then, since they would give the VPN exit's place.
/// What each file shows, and what none does:
/// - /proc/net/route: IPv4, the main table only (where OpenVPN and most VPN clients put their
///   default or its two /1 halves), with interface names;
/// - /proc/net/ipv6_route: IPv6, every table (wg-quick's table 51820 too), with names;
/// - /proc/net/fib_trie: IPv4, every table, but no interface names: a default route in a
///   table other than main and local (wg-quick's policy routing) is seen, not which interface
///   it goes through, so it counts as a VPN's when a tunnel-named interface exists
///   (/proc/net/dev). The routing rules (`ip rule`) are in no file: whether the rule that
///   sends traffic to that table applies is not seen; netlink would tell, these files do not.
public enum NetworkRoute {
  /// Interface name prefixes taken for tunnels: tun/tap (OpenVPN and most VPN clients),
  /// wg (WireGuard), ppp (PPP, PPTP, L2TP), ipsec/vti (IPsec), and tailscale/zt.
  public static let tunnelPrefixes = ["tun", "tap", "wg", "ppp", "ipsec", "vti", "tailscale", "zt"]

  /// The tunnel that carries, or may carry, the default route, from the texts of the files
  /// (nil where a file could not be read): the IPv4 main table's default, then IPv6's in any
  /// table, then a default in another IPv4 table with a tunnel-named interface present.
  public static func tunnel(
    procNetRoute: String?, procNetIPv6Route: String?, fibTrie: String?, procNetDev: String?
  ) -> String? {
    if let text = procNetRoute, let t = tunnel(among: defaultInterfaces(procNetRoute: text)) { return t }
    if let text = procNetIPv6Route, let t = tunnel(among: defaultInterfaces(procNetIPv6Route: text)) {
      return t
    }
    guard let trie = fibTrie, !otherTablesWithDefault(fibTrie: trie).isEmpty, let dev = procNetDev else {
      return nil
    }
    return tunnel(among: interfaces(procNetDev: dev))
  }

  /// The interfaces that carry a default route in the text of /proc/net/route (flag RTF_UP):
  /// 0.0.0.0/0, or one of the halves 0.0.0.0/1 and 128.0.0.0/1 with which OpenVPN's
  /// `redirect-gateway def1` overrides the default without replacing it. The file shows the
  /// main table only.
  public static func defaultInterfaces(procNetRoute text: String) -> [String] {
    text.split(whereSeparator: \.isNewline).dropFirst().compactMap { line in
      let f = fields(line)
      guard f.count >= 8, let flags = Int(f[3], radix: 16), flags & 1 != 0 else { return nil }
      // The file's words are the kernel's host-order hex: 00000080 is 128.0.0.0 on x86.
      let whole = f[1] == "00000000" && f[7] == "00000000"
      let half =
        ["00000000", "00000080", "80000000"].contains(f[1]) && ["00000080", "80000000"].contains(f[7])
      return whole || half ? String(f[0]) : nil
    }
  }

  /// The interfaces that carry a default route in the text of /proc/net/ipv6_route, which
  /// lists every table: a route that is up (RTF_UP) and not a reject route (RTF_REJECT, the
  /// kernel's unreachable default on lo), to ::/0 or to a prefix of at most 4 bits that covers
  /// part of the global unicast 2000::/3 (OpenVPN's `redirect-gateway ipv6`: 2000::/4, 3000::/4).
  public static func defaultInterfaces(procNetIPv6Route text: String) -> [String] {
    text.split(whereSeparator: \.isNewline).compactMap { line in
      let f = fields(line)
      guard f.count >= 10, f[0].count == 32, let length = Int(f[1], radix: 16),
        let flags = Int(f[8], radix: 16), flags & 0x1 != 0, flags & 0x200 == 0,
        let nibble = f[0].first.flatMap({ Int(String($0), radix: 16) })
      else { return nil }
      let all = length == 0
      let global =
        (1...4).contains(length) && [2, 3].contains { $0 >> (4 - length) == nibble >> (4 - length) }
      return all || global ? String(f[9]) : nil
    }
  }

  /// The tables other than main and local that hold a default route (0.0.0.0/0, unicast) in
  /// the text of /proc/net/fib_trie (`Id 51820` for wg-quick's).
  public static func otherTablesWithDefault(fibTrie text: String) -> [String] {
    var table: Substring? = nil
    var leaf: Substring? = nil
    var found: [String] = []
    for line in text.split(whereSeparator: \.isNewline) {
      guard line.first == " " else {
        table = line.last == ":" ? line.dropLast() : nil
        leaf = nil
        continue
      }
      let t = line.drop { $0 == " " }
      if t.hasPrefix("|-- ") {
        leaf = t.dropFirst(4)
      } else if t.hasPrefix("/0 "), t.hasSuffix(" UNICAST"), leaf == "0.0.0.0", let table,
        table != "Main", table != "Local", !found.contains(String(table))
      {
        found.append(String(table))
      }
    }
    return found
  }

  /// The interface names in the text of /proc/net/dev (two header lines, then `name: counters`).
  public static func interfaces(procNetDev text: String) -> [String] {
    text.split(whereSeparator: \.isNewline).dropFirst(2).compactMap { line in
      guard let colon = line.firstIndex(of: ":") else { return nil }
      let name = line[..<colon].drop { $0 == " " }
      return name.isEmpty ? nil : String(name)
    }
  }

  /// The tunnel among `interfaces`, if one is.
  public static func tunnel(among interfaces: [String]) -> String? {
    interfaces.first { name in tunnelPrefixes.contains { name.hasPrefix($0) } }
  }

  private static func fields(_ line: Substring) -> [Substring] {
    line.split(whereSeparator: { $0 == " " || $0 == "\t" })
  }
}
