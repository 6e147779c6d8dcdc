/// The default route's interface, from /proc/net/route (IPv4; proc(5)): IP-only lookups are
/// never sent while it is a VPN-like interface, which would give the VPN exit's place.
public enum NetworkRoute {
  /// Interface name prefixes taken for tunnels: tun/tap (OpenVPN and most VPN clients),
  /// wg (WireGuard), ppp (PPP, PPTP, L2TP), ipsec/vti (IPsec), and tailscale/zt.
  public static let tunnelPrefixes = ["tun", "tap", "wg", "ppp", "ipsec", "vti", "tailscale", "zt"]

  /// The interfaces that carry a default route in the text of /proc/net/route (flag RTF_UP):
  /// 0.0.0.0/0, or one of the halves 0.0.0.0/1 and 128.0.0.0/1 with which OpenVPN's
  /// `redirect-gateway def1` overrides the default without replacing it. Routes in other
  /// tables (wg-quick's policy routing) are not in this file.
  public static func defaultInterfaces(procNetRoute text: String) -> [String] {
    text.split(whereSeparator: \.isNewline).dropFirst().compactMap { line in
      let f = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
      guard f.count >= 8, let flags = Int(f[3], radix: 16), flags & 1 != 0 else { return nil }
      // The file's words are the kernel's host-order hex: 00000080 is 128.0.0.0 on x86.
      let whole = f[1] == "00000000" && f[7] == "00000000"
      let half =
        ["00000000", "00000080", "80000000"].contains(f[1]) && ["00000080", "80000000"].contains(f[7])
      return whole || half ? String(f[0]) : nil
    }
  }

  /// The tunnel among `interfaces`, if one is.
  public static func tunnel(among interfaces: [String]) -> String? {
    interfaces.first { name in tunnelPrefixes.contains { name.hasPrefix($0) } }
  }
}
