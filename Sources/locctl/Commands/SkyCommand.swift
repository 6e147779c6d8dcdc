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
      a second), as cgps and xgps do; while a source's receiver sleeps (acquisition idle) its plot
      says "receiver asleep since ...: this sky is from ...", and a source awake that sent no new
      sky for 5 s gets "no new sky for ...". --json prints the sky method's result (PROTOCOL.md); with
      --watch, each sky event's data on a line of its own. locd assembles skies only while someone
      reads them: asked while nobody did, sky waits for each receiver's first sky (at most 5 s), and
      keeps them coming for 10 minutes; --watch keeps them coming while it runs.
      """,
    examples: ["locctl sky", "locctl sky --watch", "locctl sky --json | jq '.skies[0].summary'"],
    needsDaemon: true, run: run)

  static func run(_ invocation: Invocation) throws(UsageError) -> Int32 {
    try invocation.noPositionals()
    let watch = invocation.flag("watch")
    let plot = watch || invocation.flag("plot")
    return withDaemon(invocation) { client throws(ControlClient.Failure) in
      let result = try client.call(.sky)
      // The skies' times in the zone in effect, as status shows times, and the sources'
      // states (asked before subscribing: events that come while a reply is awaited are
      // not kept).
      let status = invocation.json ? nil : try? client.call(.status)
      let zone =
        status.map { ScreenZone($0.timezone.zone.id, fallbackOffset: $0.timezone.zone.offset ?? 0) }
        ?? ScreenZone("UTC")
      var watched = Watched(skies: result.skies)
      for source in status?.sources ?? [] { watched.states[source.uri] = source.state }
      if invocation.json {
        Output.line(result.json.serialized)
      } else {
        Output.write(plot ? plotScreen(watched, zone: zone) : table(result.skies, zone: zone))
      }
      Output.flush()
      guard watch else { return ExitStatus.ok }
      _ = try client.call(.subscribe([.sky, .sourceStatus]))
      while true {
        // A receiver that sleeps sends no sky: at most every `Watched.staleAfter` the
        // screen is drawn again to say how old each sky is (issue 43, item 7).
        let event: EventMessage
        do throws(ControlClient.Failure) {
          event = try client.nextEvent(timeout: Watched.staleAfter)
        } catch {
          guard case .timedOut = error else { throw error }
          if !invocation.json && watched.anyStale { redraw(watched, zone: zone) }
          continue
        }
        switch event.data {
        case .sky(let sky):
          watched.update(sky)
          if invocation.json { Output.line(sky.json.serialized) } else { redraw(watched, zone: zone) }
        case .sourceStatus(let source):
          let before = watched.states[source.uri]
          watched.states[source.uri] = source.state
          if source.state == .known(.idle) && before != source.state {
            watched.asleepSince[source.uri] = event.time
          }
          if source.state != .known(.idle) { watched.asleepSince[source.uri] = nil }
          guard !invocation.json, before != source.state, watched.hasSky(source.uri) else { continue }
          redraw(watched, zone: zone)
        default: continue
        }
        Output.flush()
      }
    }
  }

  /// What `sky --watch` knows: each source's latest sky, when it came (locctl's clock), and
  /// each source's state, to say when a receiver sleeps and its sky no longer changes.
  struct Watched {
    /// No new sky for this long from a source that is not asleep: the screen says so.
    static let staleAfter: Duration = .seconds(5)
    var skies: [SkyView]
    var received: [String: ContinuousClock.Instant] = [:]
    var states: [String: OpenEnum<SourceView.State>] = [:]
    /// When a source went idle, from its source-status event (nil: before the watch).
    var asleepSince: [String: Instant] = [:]

    init(skies: [SkyView]) {
      self.skies = skies
      let now = ContinuousClock.now
      for sky in skies { received[sky.source] = now }
    }

    mutating func update(_ sky: SkyView) {
      if let i = skies.firstIndex(where: { $0.source == sky.source }) {
        skies[i] = sky
      } else {
        skies.append(sky)
      }
      received[sky.source] = .now
    }

    func hasSky(_ uri: String) -> Bool { skies.contains { $0.source == uri } }

    /// How long since `uri`'s sky came, when longer than `staleAfter`.
    func silence(_ uri: String) -> Duration? {
      guard let at = received[uri] else { return nil }
      let d = ContinuousClock.now - at
      return d >= Self.staleAfter ? d : nil
    }

    var anyStale: Bool { skies.contains { states[$0.source] == .known(.idle) || silence($0.source) != nil } }

    /// The line under a sky's heading when the sky is not live: its receiver sleeps, or
    /// nothing new came for a while; nil while skies come.
    func note(_ sky: SkyView, zone: ScreenZone) -> String? {
      let asOf = "this sky is from " + zone.clock(sky.time, seconds: true)
      if states[sky.source] == .known(.idle) {
        let since = asleepSince[sky.source].map { " since " + zone.clock($0, seconds: true) } ?? ""
        return "receiver asleep\(since) (acquisition idle): \(asOf) and changes again when something "
          + "wants a position ('locctl locate', a client watching)"
      }
      guard let quiet = silence(sky.source) else { return nil }
      let state = states[sky.source].map { " (source \($0.word))" } ?? ""
      return "no new sky for \(TimeFormat.duration(.seconds(quiet.components.seconds)))\(state): \(asOf)"
    }
  }

  /// The watch's screen again: home and clear on a terminal; elsewhere one screen after the
  /// other.
  static func redraw(_ watched: Watched, zone: ScreenZone) {
    if StandardStreams.outputIsTerminal { Output.write("\u{1B}[H\u{1B}[2J") }
    Output.write(plotScreen(watched, zone: zone))
    Output.flush()
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

  /// The plots, one per source, each under its heading (and, watching, a line when its
  /// sky is not live).
  static func plotScreen(_ watched: Watched, zone: ScreenZone) -> String {
    let skies = watched.skies
    guard !skies.isEmpty else { return "No satellites: no source has reported a sky yet.\n" }
    var out = ""
    for (i, sky) in skies.enumerated() {
      if i > 0 { out += "\n" }
      out += heading(sky, zone: zone) + "\n"
      if let note = watched.note(sky, zone: zone) { out += note + "\n" }
      out += SkyPlot.render(sky.satellites).joined(separator: "\n") + "\n"
      let unplaced = sky.satellites.filter { $0.elevation == nil || $0.azimuth == nil }.count
      out += "* used  o not used"
      if unplaced > 0 { out += "  (\(unplaced) without a position in the sky, not drawn)" }
      out += "\n"
    }
    return out
  }
}
