import LocCore
import LocHost
import LocProtocol

/// `locctl sun [--at LAT,LON] [--date D] [--days N] [--tz ZONE] [--height H] [--event E]...
/// [--json]` and `locctl sun --now`: solar events of local days, or where the Sun is now,
/// computed here; the place is `--at`, or without it locd's position and zone.
enum SunCommand {
  static let spec = CommandSpec(
    name: "sun", summary: "sunrise, sunset, twilights, solar noon; or where the Sun is now (--now)",
    usage: [
      "sun [--at LAT,LON] [--date YYYY-MM-DD] [--days N] [--tz ZONE] [--height DISTANCE] [--event NAME]... [--json]",
      "sun --now [--at LAT,LON] [--tz ZONE] [--json]",
      "sun --svg|--png [--at LAT,LON] [--date YYYY-MM-DD] [--tz ZONE] [--height DISTANCE] > FILE",
    ],
    options: [
      .coordinate(
        "at", "the place, in a form of COORDINATES in locctl(1) (default: locd's position and zone)"),
      .valued("date", "YYYY-MM-DD", "the first local date (default today there)"),
      .valued("days", "N", "this many days, 1 to \(maximumDays)"),
      .valued(
        "tz", "ZONE", "local days and times in this zone (default the place's)", completion: .live(.zoneNames)
      ),
      .valued("height", "DISTANCE", "the observer's height above the surroundings: 30m"),
      .valued(
        "event", "NAME", "add an event (civil-dusk, elevation:-8.5:evening); repeatable",
        completion: .words(RuleText.eventNames), repeatable: true),
      .flag("now", "the Sun's elevation, azimuth and part of the day now, and when that changes"),
      .flag("svg", "a year of daylight, twilights and night as an SVG picture (the year of --date)"),
      .flag("png", "the same picture as PNG (rendered by rsvg-convert, from librsvg2-bin)"),
    ],
    help: """
      Computed here, no daemon needed with --at. Without --at it asks locd for its position, zone
      and clock, and says so: today and now are then locd's (the simulated time under locd --clock
      replay); with --at they are this machine's clock's, and the header says which. The table shows local times in the zone with its abbreviation; --json prints one
      object per day (SOLAR.md): date, timezone, each event in UTC or null, and polar saying why each
      null is null. Event names take - or _ (civil-dusk, civil_dusk). --now prints the part of the
      day (day, golden hour, civil, nautical or astronomical twilight, night), the Sun's elevation and
      azimuth, and the next change. --svg and --png draw the year of --date (default this year)
      day by day in local time, with solar noon, the months, the hours and today marked.
      """,
    examples: [
      "locctl sun", "locctl sun --at 69.6492,18.9553 --date 2026-12-21 --days 7",
      "locctl sun --now --json", "locctl sun --at 59.91,10.75 --days 3660 --json > oslo.jsonl",
      "locctl sun --at 59.91,10.75 --svg > oslo.svg",
    ],
    needsDaemon: false, run: run)

  /// Most days one call prints (ten years).
  static let maximumDays = 3660

  /// The place and zone the days are for, and where they came from.
  struct Place {
    var coordinate: Coordinate
    var zone: ZoneRules
    /// `locd's position (fix, ±4 m)`, or nil for --at.
    var source: String?
    /// locd's clock when the place came from locd (simulated under `--clock replay`); nil for
    /// --at, which uses this machine's clock.
    var daemonNow: Instant? = nil
    /// Whether locd's clock is simulated (`locd --clock replay`).
    var simulated = false

    /// The clock "now" and "today" are read from, and its name for the header.
    var clock: (now: Instant, name: String) {
      guard let daemonNow else { return (ScreenZone.now(), "this machine's clock") }
      return (daemonNow, simulated ? "locd's simulated clock" : "locd's clock")
    }
  }

  static func run(_ invocation: Invocation) throws(UsageError) -> Int32 {
    try invocation.noPositionals()
    let at = try invocation.coordinate("at")?.coordinate
    let height = try invocation.distance("height", in: 0...99_999) ?? Meters(0)
    var days = 1
    if let text = invocation.value("days") {
      guard let n = Int(text), (1...maximumDays).contains(n) else {
        throw UsageError("--days '\(text)': expected 1 to \(maximumDays)")
      }
      days = n
    }
    var events = SolarEvent.standard
    for text in invocation.all("event") {
      let event = try RuleText.event(text)
      if !events.contains(event) { events.append(event) }
    }
    var date: CivilDate? = nil
    if let text = invocation.value("date") {
      date = try TimeText.date(text, option: "date", years: 1900...2100)
    }
    var tz: ZoneRules? = nil
    if let name = invocation.value("tz") { tz = try rules(name) }
    if invocation.flag("now"), date != nil || days != 1 || !invocation.all("event").isEmpty {
      throw UsageError("--now shows this instant: it takes no --date, --days or --event")
    }
    let picture = invocation.flag("png") ? "--png" : invocation.flag("svg") ? "--svg" : nil
    if let picture {
      guard !(invocation.flag("svg") && invocation.flag("png")) else {
        throw UsageError("give --svg or --png, not both")
      }
      guard !invocation.flag("now"), days == 1, invocation.all("event").isEmpty, !invocation.json else {
        throw UsageError("\(picture) draws a whole year: it takes no --now, --days, --event or --json")
      }
      if picture == "--png", StandardStreams.outputIsTerminal {
        throw UsageError("--png writes a picture: send it to a file (> sun.png)")
      }
    }

    let place: Place
    if let at {
      let zone: ZoneRules
      if let tz { zone = tz } else { zone = try rules(zoneName(at: at)) }
      place = Place(coordinate: at, zone: zone, source: nil)
    } else {
      switch daemonPlace(invocation, tz: tz) {
      case .success(let p): place = p
      case .failure(let status): return status.code
      }
    }
    let (now, clockName) = place.clock
    if invocation.flag("now") {
      let sun = SunNow(coordinate: place.coordinate, at: now, height: height)
      let zone = ScreenZone(place.zone.name)
      if invocation.json {
        Output.line(sun.json(zone: zone).serialized)
      } else {
        Output.line(header(place, height: height) + "; now by " + clockName)
        Output.line(sun.summary(zone: zone))
      }
      return ExitStatus.ok
    }
    let first = date ?? place.zone.localDate(at: now)
    let calculator = SolarCalculator(coordinate: place.coordinate, height: height)
    if let picture {
      let chart = SunChart(
        year: first.year, calculator: calculator, zone: place.zone, today: place.zone.localDate(at: now),
        title: header(place, height: height) + ", \(first.year), local time (\(place.zone.name))")
      let svg = Array(chart.svg.utf8)
      guard picture == "--png" else {
        Output.write(chart.svg)
        return ExitStatus.ok
      }
      Output.flush()
      do throws(ProgramRun.Failure) {
        try ProgramRun.filter("rsvg-convert", ["--format", "png"], input: svg)
      } catch {
        if case .cannotStart = error {
          printError(
            "locctl sun: --png needs rsvg-convert (apt install librsvg2-bin), or use --svg: \(error)")
        } else {
          printError("locctl sun: \(error)")
        }
        return ExitStatus.failure
      }
      return ExitStatus.ok
    }
    if invocation.json {
      SunJSON.write(days: days, from: first, calculator: calculator, zone: place.zone, events: events)
    } else {
      let solarDays = (0..<days).map {
        calculator.day(first.adding(days: $0), in: place.zone, events: events)
      }
      let today = date == nil ? "; today by " + clockName : ""
      // --utc: the rows stay the place's local days; only the times are shown in UTC.
      Output.write(
        header(place, height: height) + today + (ScreenZone.utc ? "; times in UTC\n" : "; local times\n"))
      Output.write(SunTable.render(solarDays, zone: ScreenZone.utc ? .utc : place.zone))
    }
    return ExitStatus.ok
  }

  /// Why there is no place from locd: the exit status (the message is printed).
  struct NoPlace: Error { var code: Int32 }

  /// locd's position and zone (`--tz` overrides the zone).
  static func daemonPlace(_ invocation: Invocation, tz: ZoneRules?) -> Result<Place, NoPlace> {
    var place: Place? = nil
    let status = withDaemon(invocation) { client throws(ControlClient.Failure) in
      let s = try client.call(.status)
      guard let p = s.position.position else {
        printError(
          "locctl sun: locd has no position (\(s.position.reason ?? "no reason given")); give --at LAT,LON")
        return ExitStatus.failure
      }
      let zone: ZoneRules
      if let tz {
        zone = tz
      } else if let z = try? ZoneDatabase().rules(named: s.timezone.zone.id) {
        zone = z
      } else {
        printError("locctl sun: this machine has no rules for locd's zone \(s.timezone.zone.id); give --tz")
        return ExitStatus.failure
      }
      var source = "locd's position (\(s.position.tier.rawValue)"
      if let a = p.accuracy { source += ", " + Measures.accuracy(a) }
      place = Place(
        coordinate: p.coordinate, zone: zone, source: source + ")", daemonNow: ScreenZone.now(daemon: s.now),
        simulated: s.simulation != nil)
      return ExitStatus.ok
    }
    if let place { return .success(place) }
    if status == ExitStatus.notRunning { printError("locctl sun: or give the place with --at LAT,LON") }
    return .failure(NoPlace(code: status))
  }

  /// `Europe/Oslo at 59.9139, 10.7522 (locd's position (fix, ±4 m)), 30 m up`.
  static func header(_ place: Place, height: Meters) -> String {
    let c = place.coordinate
    var out = "\(place.zone.name) at " + Measures.coordinate(c, accuracy: nil)
    if let source = place.source { out += ", " + source }
    if height.value > 0 { out += ", \(Numbers.short(height.value, 1)) m up" }
    return out
  }

  /// The zone at `c` from the boundary data, else the system's, else UTC.
  static func zoneName(at c: Coordinate) -> String {
    (try? ZoneBoundaryFile.open().zoneName(at: c)) ?? ZoneDatabase.systemZoneName() ?? "UTC"
  }

  /// The rules of zone `name`, or a usage error naming it.
  static func rules(_ name: String) throws(UsageError) -> ZoneRules {
    do { return try ZoneDatabase().rules(named: name) } catch { throw UsageError("--tz: \(error)") }
  }
}

/// `locctl sun --json`: one object per day written straight into a buffer of its own (ten years
/// are 3,660 lines of nine instants each). Days are independent of each other, so a long
/// table is made in two halves at once, the second on a thread of its own, and written in
/// order: the output is the same bytes either way.
enum SunJSON {
  /// From this many days on, the second half is made on another thread (below it, a thread
  /// costs more than it saves).
  static let parallelFrom = 512

  /// What every line shares: the zone's name and the events' keys, made once.
  struct Parts: Sendable {
    var zone: [UInt8] = []
    /// `,"name":` per event; the polar object's members take it without the comma.
    var keys: [[UInt8]]
    var absences: [[UInt8]]
  }

  /// The second half's bytes, handed over when the semaphore is posted.
  final class Handoff: @unchecked Sendable {
    var bytes: [UInt8] = []
    let done = Semaphore()
  }

  /// Writes `days` days from `first`.
  static func write(
    days: Int, from first: CivilDate, calculator: SolarCalculator, zone: ZoneRules, events: [SolarEvent]
  ) {
    var parts = Parts(
      keys: events.map { event -> [UInt8] in
        var key: [UInt8] = [0x2C]
        JSON.string(event.description).write(to: &key)
        key.append(0x3A)
        return key
      },
      absences: [SolarDay.Absence.polarDay, .polarNight, .otherDay].map { why -> [UInt8] in
        var text: [UInt8] = []
        JSON.string(why.rawValue).write(to: &text)
        return text
      })
    JSON.string(zone.name).write(to: &parts.zone)
    let half = days >= parallelFrom ? days / 2 : days
    let handoff = Handoff()
    let second = half..<days
    let started =
      !second.isEmpty
      && DetachedThread.start { [parts] in
        var out = ByteText()
        lines(
          second, from: first, calculator: calculator, zone: zone, events: events, parts: parts, into: &out)
        handoff.bytes = out.bytes
        handoff.done.signal()
      }
    var out = ByteText()
    lines(
      0..<half, from: first, calculator: calculator, zone: zone, events: events, parts: parts, into: &out,
      flushing: true)
    out.flush()
    if started {
      handoff.done.wait()
      handoff.bytes.withUnsafeBytes { Output.write(bytes: $0) }
    } else if !second.isEmpty {
      lines(
        second, from: first, calculator: calculator, zone: zone, events: events, parts: parts, into: &out,
        flushing: true)
      out.flush()
    }
  }

  /// Appends the lines of the days `range` (0: `first`); flushes as the buffer fills when
  /// `flushing` (only the thread that owns the output may).
  static func lines(
    _ range: Range<Int>, from first: CivilDate, calculator: SolarCalculator, zone: ZoneRules,
    events: [SolarEvent], parts: Parts, into out: inout ByteText, flushing: Bool = false
  ) {
    var polar: [(Int, SolarDay.Absence)] = []
    // Each local day runs from its first instant to the next day's (`ZoneRules.localDay`),
    // and each day's start is found once.
    var date = first.adding(days: range.lowerBound)
    var start = zone.startOfDay(date)
    for _ in range {
      let next = date.adding(days: 1)
      let nextStart = zone.startOfDay(next)
      // The day holds the events in the order asked: entry k is events[k].
      let day = calculator.day(date, interval: start..<max(start, nextStart), events: events)
      date = next
      start = nextStart
      out.append("{\"date\":\"")
      out.append(date: day.date)
      out.append("\",\"timezone\":")
      out.append(parts.zone)
      polar.removeAll(keepingCapacity: true)
      var twice = false
      for k in day.indices {
        out.append(parts.keys[k])
        switch day[k].occurrence {
        case .at(let t):
          out.append(0x22)
          out.append(iso8601Seconds: t)
          out.append(0x22)
          if !day.laterOccurrences(at: k).isEmpty { twice = true }
        case .never(let why):
          out.append("null")
          polar.append((k, why))
        }
      }
      out.append(",\"polar\":{")
      for (n, (k, why)) in polar.enumerated() {
        if n > 0 { out.append(0x2C) }
        out.bytes.append(contentsOf: parts.keys[k].dropFirst())
        switch why {
        case .polarDay: out.append(parts.absences[0])
        case .polarNight: out.append(parts.absences[1])
        case .otherDay: out.append(parts.absences[2])
        }
      }
      out.append(0x7D)
      if twice { also(day, into: &out) }
      out.append("}\n")
      if flushing { out.flushIfFull() }
    }
  }

  /// `,"also":{"event":[...]}`: the later occurrences of events that happen twice that day.
  static func also(_ day: SolarDay, into out: inout ByteText) {
    var o = JSONObject()
    for k in day.indices where !day.laterOccurrences(at: k).isEmpty {
      o[day[k].event.description] = .array(day.laterOccurrences(at: k).map { .string($0.iso8601()) })
    }
    out.append(",\"also\":")
    out.append(json: .object(o))
  }
}
