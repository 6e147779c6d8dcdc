import LocCore
import LocProtocol

extension StatusCommand {
  /// The `Implausible:` rows: how many values from outside were refused or raised to a
  /// floor, then the latest of each kind (the last three; every one kept with --verbose),
  /// newest last.
  static func outOfBounds(
    _ b: OutOfBoundsStatusView, zone: ScreenZone, verbose: Bool, _ row: (String, String) -> Void
  ) {
    var counts: [String] = []
    if b.refused > 0 { counts.append("\(b.refused) value\(b.refused == 1 ? "" : "s") refused") }
    if b.raised > 0 { counts.append("\(b.raised) accurac\(b.raised == 1 ? "y" : "ies") raised to a floor") }
    row(
      "Implausible:",
      Style.yellow(counts.joined(separator: ", ")) + " since start (docs/SOURCES.md, \"Bounds\")")
    for e in verbose ? b.recent : Array(b.recent.suffix(3)) {
      let times = e.count == 1 ? "" : " (\(e.count) times)"
      row(
        "",
        "\(Style.visible(e.words)) — \(e.provenance.word) from \(Style.visible(e.source)), "
          + "\(zone.dateTime(e.last))\(times)")
    }
  }
}
