import LocCore
import LocHost
import LocProtocol

/// `locctl sky [--plot] [--watch] [--json]`: the satellites each source's receiver sees, as
/// a table, or as a polar plot (`SkyPlot`) drawn once or again at every `sky` event.
enum SkyCommand {
  static let spec = CommandSpec(
    name: "sky", summary: "the satellites the receivers see: a table, or a live polar plot",
    usage: ["sky [--plot] [--watch] [--json]"],
    options: [
      .flag("plot", "draw the sky as a polar plot instead of the table"),
      .flag("watch", "draw the plot again at every change of the sky, until Ctrl-C"),
    ],
    help: """
      Each source's latest satellites, from its receiver's GSV and GSA sentences (or gpsd's SKY
      reports): one row per satellite and signal, sorted by system then number, with the system, its
      PRN (gpsd's numbering) and its number within the system, elevation and azimuth in degrees, the
      signal in dB-Hz and whether the fix uses it; a dash for what the receiver does not say. --plot
      draws the sky as a compass card: north up, east right, rings at 0, 30 and 60 degrees of
      elevation, the zenith in the middle, each satellite a mark with its PRN, * for used ones and o
      for the others. --watch draws the plot and draws it again whenever a sky changes (at most once
      a second), as cgps and xgps do. --json prints the sky method's result (PROTOCOL.md); with
      --watch, each sky event's data on a line of its own.
      """,
    examples: ["locctl sky", "locctl sky --watch", "locctl sky --json | jq '.skies[0].summary'"],
    needsDaemon: true, run: run)

  static func run(_ invocation: Invocation) throws(UsageError) -> Int32 {
    try invocation.noPositionals()
    let watch = invocation.flag("watch")
    let plot = watch || invocation.flag("plot")
    return withDaemon(invocation) { client throws(ControlClient.Failure) in
      let result = try client.call(.sky)
      // The skies' times in the zone in effect, as status shows times (asked before
      // subscribing: events that come while a reply is awaited are not kept).
      let zone =
        invocation.json
        ? ScreenZone("UTC")
        : (try? client.call(.status)).map {
          ScreenZone($0.timezone.zone.id, fallbackOffset: $0.timezone.zone.offset ?? 0)
        } ?? ScreenZone("UTC")
      if invocation.json {
        Output.line(result.json.serialized)
      } else {
        Output.write(plot ? plotScreen(result.skies, zone: zone) : table(result.skies, zone: zone))
      }
      Output.flush()
      guard watch else { return ExitStatus.ok }
      _ = try client.call(.subscribe([.sky]))
      var skies = result.skies
      while true {
        let event = try client.nextEvent()
        guard case .sky(let sky) = event.data else { continue }
        if invocation.json {
          Output.line(sky.json.serialized)
        } else {
          if let i = skies.firstIndex(where: { $0.source == sky.source }) {
            skies[i] = sky
          } else {
            skies.append(sky)
          }
          // Home and clear on a terminal; elsewhere one screen after the other.
          if StandardStreams.outputIsTerminal { Output.write("\u{1B}[H\u{1B}[2J") }
          Output.write(plotScreen(skies, zone: zone))
        }
        Output.flush()
      }
    }
  }

  /// Each source's heading: its URI, when its sky came (in `zone`) and its summary.
  static func heading(_ sky: SkyView, zone: ScreenZone) -> String {
    Style.bold(sky.source) + "  " + zone.clock(sky.time, seconds: true) + "  "
      + Measures.satellites(sky.summary)
  }

  /// The tables, one per source with a sky; a line saying there is none otherwise.
  static func table(_ skies: [SkyView], zone: ScreenZone) -> String {
    guard !skies.isEmpty else { return "No satellites: no source has reported a sky yet.\n" }
    var out = ""
    for (i, sky) in skies.enumerated() {
      if i > 0 { out += "\n" }
      out += heading(sky, zone: zone) + "\n"
      out += Style.bold(row(["System", "PRN/svid", "Elev", "Azim", "Signal", "Used"])) + "\n"
      for s in sky.satellites {
        out += row(cells(s)) + "\n"
      }
    }
    return out
  }

  /// One satellite's cells: `GPS`, `36/123`, `30°`, `200°`, `38 dB-Hz`, `yes`.
  static func cells(_ s: SatelliteView) -> [String] {
    func degrees(_ v: Double?) -> String { v.map { Numbers.short($0, 1) + "°" } ?? "-" }
    let name = GNSSConstellation.allCases.first { $0.word == s.system.word }?.name ?? s.system.word
    return [
      name, "\(s.prn)/\(s.svid)", degrees(s.elevation), degrees(s.azimuth),
      s.signal.map { Numbers.short($0, 1) + " dB-Hz" } ?? "-", s.used ? "yes" : "no",
    ]
  }

  /// The columns: left-aligned text, right-aligned numbers, nothing after the last.
  static func row(_ cells: [String]) -> String {
    let widths = [8, 9, 6, 6, 10, 4]
    var out = ""
    for (i, cell) in cells.enumerated() {
      let pad = String(repeating: " ", count: max(0, widths[i] - cell.count))
      out += i == cells.count - 1 ? cell : i == 0 ? cell + pad : pad + cell
      if i < cells.count - 1 { out += "  " }
    }
    return out
  }

  /// The plots, one per source, each under its heading.
  static func plotScreen(_ skies: [SkyView], zone: ScreenZone) -> String {
    guard !skies.isEmpty else { return "No satellites: no source has reported a sky yet.\n" }
    var out = ""
    for (i, sky) in skies.enumerated() {
      if i > 0 { out += "\n" }
      out += heading(sky, zone: zone) + "\n"
      out += SkyPlot.render(sky.satellites).joined(separator: "\n") + "\n"
      let unplaced = sky.satellites.filter { $0.elevation == nil || $0.azimuth == nil }.count
      out += "* used  o not used"
      if unplaced > 0 { out += "  (\(unplaced) without a position in the sky, not drawn)" }
      out += "\n"
    }
    return out
  }
}
