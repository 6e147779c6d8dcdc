import LocCore
import Testing

@testable import LocSystem

/// How NetworkManager's `HwAddress` is read (`WifiScanner.bssid`). NetworkManager writes a
/// BSSID as six pairs of upper-case hex digits joined by colons (nm_utils_hwaddr_ntoa); that
/// and its lower-case form are the only spellings read. Issue 40, finding 6: `+0:11:...` was
/// read as 00:11:... (UInt8("+0", radix: 16) is 0) and sent.
@Suite struct WifiBSSIDTests {
  @Test func sixHexPairsAreRead() {
    #expect(WifiScanner.bssid("00:11:22:33:44:55") == [0x00, 0x11, 0x22, 0x33, 0x44, 0x55])
    #expect(WifiScanner.bssid("DC:a6:32:Ff:0E:9b") == [0xdc, 0xa6, 0x32, 0xff, 0x0e, 0x9b])
  }

  @Test(arguments: [
    "+0:11:22:33:44:55", "-0:11:22:33:44:55", "0:11:22:33:44:55", "00:11:22:33:44:5", "+00:11:22:33:44:55",
    "00-11-22-33-44-55", "00:11:22:33:44:55:66", "00:11:22:33:44", " 00:11:22:33:44:55", "00:11:22:33:44:55 ",
    "0x:11:22:33:44:55", "00:11:22:33:44:5g", "00::11:22:33:44:55", "001122334455", "00:11:22:33:4:455",
    "", "００:11:22:33:44:55",
  ])
  func anyOtherSpellingIsRefused(_ text: String) {
    #expect(WifiScanner.bssid(text) == nil, "\(text)")
  }
}
