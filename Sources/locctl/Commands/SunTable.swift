import LocCore

/// `locctl sun`'s table: one row per local day, one column per event, local times in one
/// zone with its abbreviations listed below, and what each gap means.
enum SunTable {
  static func render(_ days: [SolarDay], zone: ZoneRules) -> String {
    guard let firstDay = days.first else { return "" }
    var out = ""
    let headers = firstDay.events.map(header)
    let widths = headers.map { max(9, $0.count + 1) }
    // The twilight columns repeat their names at dawn and at dusk: a line above says which.
    let groups = firstDay.events.map(group)
    if groups.contains(where: { $0 != nil }) {
      var line = "            "
      for (i, g) in groups.enumerated() {
        let starts = g != nil && (i == 0 || groups[i - 1] != g)
        line += (starts ? g ?? "" : "").column(widths[i])
      }
      out += Style.bold(line.trimmingTrailingSpaces) + "\n"
    }
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
          cell = clock(zone.localDateTime(at: instant))
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
        let later = day.occurrences(of: event).dropFirst().map { clock(zone.localDateTime(at: $0)) }
        out += "            (\(event) also at \(later.joined(separator: ", ")))\n"
      }
    }
    if !abbreviations.isEmpty { out += "times in \(abbreviations.joined(separator: "/")) (\(zone.name))\n" }
    for absence in [SolarDay.Absence.polarDay, .polarNight, .otherDay] where absences.contains(absence) {
      switch absence {
      case .polarDay: out += "\(mark(absence)): the Sun stays above that elevation all day\n"
      case .polarNight: out += "\(mark(absence)): the Sun stays below that elevation all day\n"
      case .otherDay: out += "\(mark(absence)): it happens just before or after this local day\n"
      }
    }
    return out
  }

  /// `21:52:10`.
  static func clock(_ l: LocalDateTime) -> String {
    TimeFormat.clock(secondOfDay: l.hour * 3600 + l.minute * 60 + l.second, seconds: true)
  }

  static func mark(_ absence: SolarDay.Absence) -> String {
    switch absence {
    case .polarDay: return "-day"
    case .polarNight: return "-night"
    case .otherDay: return "-other"
    }
  }

  /// `dawn` or `dusk` for a twilight's start or end, nil for the other events.
  static func group(_ event: SolarEvent) -> String? {
    switch event {
    case .astronomicalDawn, .nauticalDawn, .civilDawn: return "dawn"
    case .civilDusk, .nauticalDusk, .astronomicalDusk: return "dusk"
    default: return nil
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
