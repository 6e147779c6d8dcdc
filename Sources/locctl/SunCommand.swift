import LocCore
import LocSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `locctl sun --at LAT,LON [--date YYYY-MM-DD] [--days N] [--tz ZONE] [--height M]
/// [--event NAME]... [--json]`: solar events of local days, computed here (no daemon needed).
enum SunCommand: LocctlCommand {
  static let name = "sun"
  static let summary = "sunrise, sunset, twilights and solar noon for a place (offline)"

  /// Most days one call prints (ten years).
  static let maximumDays = 3660

  static func run(_ arguments: [String], socket: String) -> Int32 {
    guard
      let options = parseOptions(
        arguments, valued: ["at", "date", "days", "tz", "height", "event"], flags: ["json"], command: name)
    else { return ExitStatus.usage }
    guard options.positionals.isEmpty else {
      return usageError("unexpected argument '\(options.positionals[0])'")
    }
    guard let at = options.value("at") else { return usageError("--at LAT,LON is required") }
    guard let coordinate = parseCoordinate(at) else {
      return usageError("--at '\(at)': expected LAT,LON in degrees, e.g. 69.6492,18.9553")
    }
    var height = Meters(0)
    if let text = options.value("height") {
      guard let value = Double(text), value.isFinite, value >= 0, value < 100_000 else {
        return usageError("--height '\(text)': expected metres, 0 or more")
      }
      height = Meters(value)
    }
    var days = 1
    if let text = options.value("days") {
      guard let n = Int(text), (1...maximumDays).contains(n) else {
        return usageError("--days '\(text)': expected 1 to \(maximumDays)")
      }
      days = n
    }
    var events = SolarEvent.standard
    for text in options.all("event") {
      guard let event = SolarEvent(name: text) else {
        return usageError("--event '\(text)': expected an event name or elevation:DEGREES:morning|evening")
      }
      if !events.contains(event) { events.append(event) }
    }

    // The zone: --tz, else the zone at --at from the boundary data, else the system's.
    let zoneName =
      options.value("tz") ?? (try? ZoneBoundaryFile.open().zoneName(at: coordinate))
      ?? ZoneDatabase.systemZoneName() ?? "UTC"
    let zone: ZoneRules
    do {
      zone = try ZoneDatabase().rules(named: zoneName)
    } catch {
      return usageError("--tz: \(error)")
    }
    let first: CivilDate
    if let text = options.value("date") {
      guard let date = CivilDate(iso: text), (1900...2100).contains(date.year) else {
        return usageError("--date '\(text)': expected YYYY-MM-DD between 1900 and 2100")
      }
      first = date
    } else {
      // Today in that zone, from the real clock (never read in the core).
      var now = timespec()
      clock_gettime(CLOCK_REALTIME, &now)
      first = zone.localDate(at: Instant(microsecondsSinceEpoch: Int64(now.tv_sec) * 1_000_000))
    }

    let calculator = SolarCalculator(coordinate: coordinate, height: height)
    let solarDays = (0..<days).map { calculator.day(first.adding(days: $0), in: zone, events: events) }
    if options.flag("json") {
      for day in solarDays { print(json(day, zone: zone).serialized) }
    } else {
      print(table(solarDays, zone: zone, calculator: calculator), terminator: "")
    }
    return ExitStatus.ok
  }

  static func usageError(_ text: String) -> Int32 {
    printError("locctl sun: \(text)")
    return ExitStatus.usage
  }

  /// "LAT,LON" in degrees.
  static func parseCoordinate(_ text: String) -> Coordinate? {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
    guard parts.count == 2,
      let lat = Double(parts[0].trimmingSpaces), let lon = Double(parts[1].trimmingSpaces)
    else { return nil }
    return Coordinate(lat: lat, lon: lon)
  }

  /// One day as the documented JSON object (docs/SOLAR.md): instants in UTC, `polar` explains
  /// every null.
  static func json(_ day: SolarDay, zone: ZoneRules) -> JSON {
    var object: JSONObject = ["date": .string(day.date.description), "tz": .string(zone.name)]
    var polar = JSONObject()
    for (event, occurrence) in day {
      switch occurrence {
      case .at(let instant):
        object[event.description] = .string(instant.iso8601())
      case .never(let absence):
        object[event.description] = .null
        polar[event.description] = .string(absence.rawValue)
      }
    }
    object["polar"] = .object(polar)
    // Rarely an event happens twice in one local day (a 25-hour day): the later ones.
    var also = JSONObject()
    for event in day.events where day.occurrences(of: event).count > 1 {
      also[event.description] = .array(day.occurrences(of: event).dropFirst().map { .string($0.iso8601()) })
    }
    if !also.keys.isEmpty { object["also"] = .object(also) }
    return .object(object)
  }

  /// A table in local time: one row per day, one column per event.
  static func table(_ days: [SolarDay], zone: ZoneRules, calculator: SolarCalculator) -> String {
    guard let firstDay = days.first else { return "" }
    let c = calculator.coordinate
    var out = "\(zone.name) at \(c.latitude.value), \(c.longitude.value)"
    if calculator.height.value > 0 { out += ", \(calculator.height.value) m up" }
    out += "; local times\n"
    let headers = firstDay.events.map(header)
    let widths = headers.map { max(9, $0.count + 1) }
    out += Style.bold(
      ("date        " + zip(headers, widths).map { $0.0.column($0.1) }.joined()).trimmingTrailingSpaces)
    out += "\n"
    var absences = Set<SolarDay.Absence>()
    var abbreviations: [String] = []
    for day in days {
      var row = day.date.description + "  "
      for (i, (_, occurrence)) in day.enumerated() {
        let cell: String
        switch occurrence {
        case .at(let instant):
          let local = zone.localDateTime(at: instant)
          cell = "\(pad2(local.hour)):\(pad2(local.minute)):\(pad2(local.second))"
          let abbreviation = zone.abbreviation(at: instant)
          if !abbreviations.contains(abbreviation) { abbreviations.append(abbreviation) }
        case .never(let absence):
          absences.insert(absence)
          cell = mark(absence)
        }
        row += cell.column(widths[i])
      }
      out += row.trimmingTrailingSpaces + "\n"
      for event in day.events where day.occurrences(of: event).count > 1 {
        let later = day.occurrences(of: event).dropFirst().map { instant in
          let local = zone.localDateTime(at: instant)
          return "\(pad2(local.hour)):\(pad2(local.minute)):\(pad2(local.second))"
        }
        out += "            (\(event) also at \(later.joined(separator: ", ")))\n"
      }
    }
    if !abbreviations.isEmpty { out += "times in \(abbreviations.joined(separator: "/"))\n" }
    for absence in [SolarDay.Absence.polarDay, .polarNight, .otherDay] where absences.contains(absence) {
      switch absence {
      case .polarDay: out += "\(mark(absence)): the Sun stays above that elevation all day\n"
      case .polarNight: out += "\(mark(absence)): the Sun stays below that elevation all day\n"
      case .otherDay: out += "\(mark(absence)): it happens just before or after this local day\n"
      }
    }
    return out
  }

  static func mark(_ absence: SolarDay.Absence) -> String {
    switch absence {
    case .polarDay: return "-day"
    case .polarNight: return "-night"
    case .otherDay: return "-other"
    }
  }

  static func header(_ event: SolarEvent) -> String {
    switch event {
    case .astronomicalDawn: return "astro"
    case .nauticalDawn: return "nautical"
    case .civilDawn: return "civil"
    case .sunrise: return "sunrise"
    case .solarNoon: return "noon"
    case .sunset: return "sunset"
    case .civilDusk: return "civil"
    case .nauticalDusk: return "nautical"
    case .astronomicalDusk: return "astro"
    default: return event.description
    }
  }

  static func pad2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}

extension String {
  /// Padded to `width`, or followed by one space when it is as long or longer.
  fileprivate func column(_ width: Int) -> String {
    count >= width ? self + " " : self + String(repeating: " ", count: width - count)
  }

  fileprivate var trimmingTrailingSpaces: String {
    var s = Substring(self)
    while s.last == " " { s = s.dropLast() }
    return String(s)
  }
}

extension Substring {
  fileprivate var trimmingSpaces: Substring {
    var s = self
    while s.first == " " { s = s.dropFirst() }
    while s.last == " " { s = s.dropLast() }
    return s
  }
}
