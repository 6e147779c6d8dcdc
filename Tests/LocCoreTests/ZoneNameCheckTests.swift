import Testing

@testable import LocCore

/// The zone-name check of the configuration (`DaemonConfig.isZoneName`), whose `..` test is
/// by bytes since locd stopped linking _StringProcessing (decision 0057).
@Suite struct ZoneNameCheckTests {
  @Test func twoDotsAreFoundAnywhereAndOnlyTogether() {
    for text in ["..", "a..b", "Europe/..", "../Oslo", "x/...", "a.b..c"] {
      #expect(DaemonConfig.hasTwoDots(text), "\(text)")
    }
    for text in ["", ".", "a.b", "a.b.c", ".a.", "Europe/Oslo", "Etc/GMT+1", "é.é"] {
      #expect(!DaemonConfig.hasTwoDots(text), "\(text)")
    }
  }

  @Test func zoneNamesAsBefore() {
    for name in ["Europe/Oslo", "America/Argentina/Buenos_Aires", "Etc/GMT-14", "UTC"] {
      #expect(DaemonConfig.isZoneName(name), "\(name)")
    }
    for name in [
      "../etc/passwd", "Europe/../Oslo", "/Europe/Oslo", "Europe Oslo", "Europe/Oslø",
      String(repeating: "a", count: 65),
    ] {
      #expect(!DaemonConfig.isZoneName(name), "\(name)")
    }
  }
}
