import LocCore

/// `locctl sun --svg`: a year of day, twilights and night at a place as an SVG picture. One
/// column per local day (January on the left), local wall time downwards from midnight to
/// midnight, each stretch coloured by the part of the day the Sun's elevation puts it in
/// (night, astronomical, nautical and civil twilight, daylight); solar noon as a thin line,
/// month and hour grid lines, today marked, and a legend. Daylight-saving days show as the
/// steps they are on a wall clock.
struct SunChart {
  /// The parts of the day drawn, darkest first.
  enum Band: Int, CaseIterable {
    case night, astronomical, nautical, civil, day

    /// The fill colour.
    var colour: String {
      switch self {
      case .night: return "#0d1330"
      case .astronomical: return "#1f3068"
      case .nautical: return "#3a5aa0"
      case .civil: return "#7c9ed8"
      case .day: return "#f6d776"
      }
    }

    /// Its name in the legend.
    var name: String {
      switch self {
      case .night: return "night"
      case .astronomical: return "astronomical twilight"
      case .nautical: return "nautical twilight"
      case .civil: return "civil twilight"
      case .day: return "daylight"
      }
    }

    /// The band the Sun is in at an elevation (golden hour is daylight here).
    init(_ period: DayPeriod) {
      switch period {
      case .night: self = .night
      case .astronomicalTwilight: self = .astronomical
      case .nauticalTwilight: self = .nautical
      case .civilTwilight: self = .civil
      case .goldenHour, .day: self = .day
      }
    }

    /// The band an event starts.
    init?(after event: SolarEvent) {
      switch event {
      case .astronomicalDawn: self = .astronomical
      case .nauticalDawn: self = .nautical
      case .civilDawn: self = .civil
      case .sunrise: self = .day
      case .sunset: self = .civil
      case .civilDusk: self = .nautical
      case .nauticalDusk: self = .astronomical
      case .astronomicalDusk: self = .night
      default: return nil
      }
    }
  }

  /// One coloured stretch of a day: from and to in minutes of the local wall clock.
  struct Stretch: Equatable {
    var band: Band
    var from: Double
    var to: Double
  }

  /// Pixels per day across, per hour down, and the margins.
  static let dayWidth = 2.0
  static let hourHeight = 20.0
  static let left = 56.0
  static let top = 44.0
  static let bottom = 92.0
  static let right = 16.0

  let year: Int
  let today: CivilDate?
  let title: String
  /// Per day of the year, its stretches, and solar noon (minutes) if the day has one.
  let days: [(date: CivilDate, stretches: [Stretch], noon: Double?)]

  /// The year `year` at the place `calculator` stands for, in `zone`.
  init(year: Int, calculator: SolarCalculator, zone: ZoneRules, today: CivilDate?, title: String) {
    self.year = year
    self.today = today
    self.title = title
    let first = CivilDate(year: year, month: 1, day: 1)!
    let count = CivilDate.isLeap(year) ? 366 : 365
    days = (0..<count).map { i in
      let date = first.adding(days: i)
      let day = calculator.day(date, in: zone, events: SolarEvent.standard)
      return (
        date, SunChart.stretches(day, calculator: calculator, zone: zone), SunChart.noon(day, zone: zone)
      )
    }
  }

  /// Minutes after local midnight of `instant` on the wall clock of `zone`.
  static func minutes(_ instant: Instant, zone: ZoneRules) -> Double {
    let l = zone.localDateTime(at: instant)
    return Double(l.hour * 60 + l.minute) + Double(l.second) / 60
  }

  /// The day's stretches: the band at its first instant, then a new one at each event, in
  /// the order they happen.
  static func stretches(_ day: SolarDay, calculator: SolarCalculator, zone: ZoneRules) -> [Stretch] {
    guard !day.interval.isEmpty else { return [] }
    var changes: [(at: Instant, band: Band)] = []
    for (index, (event, occurrence)) in day.enumerated() {
      guard let band = Band(after: event), let first = occurrence.instant else { continue }
      changes.append((first, band))
      for later in day.laterOccurrences(at: index) { changes.append((later, band)) }
    }
    changes.sort { $0.at < $1.at }
    var band = Band(calculator.period(at: day.interval.lowerBound))
    var from = 0.0
    var out: [Stretch] = []
    for change in changes {
      let at = max(from, minutes(change.at, zone: zone))
      if at > from { out.append(Stretch(band: band, from: from, to: at)) }
      band = change.band
      from = at
    }
    out.append(Stretch(band: band, from: from, to: 24 * 60))
    // Neighbours of one band (an event between two stretches that changed nothing) merge.
    return out.reduce(into: []) { merged, s in
      if let last = merged.last, last.band == s.band {
        merged[merged.count - 1].to = s.to
      } else {
        merged.append(s)
      }
    }
  }

  /// Solar noon in minutes, if the day has it.
  static func noon(_ day: SolarDay, zone: ZoneRules) -> Double? {
    day.first { $0.event == .solarNoon }?.occurrence.instant.map { minutes($0, zone: zone) }
  }

  /// The picture.
  var svg: String {
    let width = Self.left + Double(days.count) * Self.dayWidth + Self.right
    let plotHeight = 24 * Self.hourHeight
    let height = Self.top + plotHeight + Self.bottom
    func y(_ minutes: Double) -> String { Self.number(Self.top + minutes / 60 * Self.hourHeight) }
    func x(_ index: Int) -> String { Self.number(Self.left + Double(index) * Self.dayWidth) }
    var out = """
      <?xml version="1.0" encoding="UTF-8"?>
      <svg xmlns="http://www.w3.org/2000/svg" width="\(Self.number(width))" height="\(Self.number(height))" \
      viewBox="0 0 \(Self.number(width)) \(Self.number(height))" font-family="sans-serif" font-size="11">
      <title>\(Self.escaped(title))</title>
      <rect width="100%" height="100%" fill="#ffffff"/>
      <text x="\(Self.number(Self.left))" y="24" font-size="14">\(Self.escaped(title))</text>

      """
    // One path per band: every stretch of that band is a rectangle of it.
    for band in Band.allCases {
      var d = ""
      for (i, day) in days.enumerated() {
        for s in day.stretches where s.band == band {
          d += "M\(x(i)) \(y(s.from))H\(x(i + 1))V\(y(s.to))H\(x(i))Z"
        }
      }
      if !d.isEmpty { out += "<path class=\"\(band)\" fill=\"\(band.colour)\" d=\"\(d)\"/>\n" }
    }
    // Solar noon, one short stroke per day.
    var noon = ""
    for (i, day) in days.enumerated() {
      if let n = day.noon { noon += "M\(x(i)) \(y(n))H\(x(i + 1))" }
    }
    out += "<path class=\"noon\" stroke=\"#c0392b\" stroke-width=\"1\" fill=\"none\" d=\"\(noon)\"/>\n"
    // Hours down the left, every three; months along the bottom.
    let plotRight = Self.number(Self.left + Double(days.count) * Self.dayWidth)
    for hour in stride(from: 0, through: 24, by: 3) {
      let yy = y(Double(hour * 60))
      out +=
        "<line x1=\"\(Self.number(Self.left))\" y1=\"\(yy)\" x2=\"\(plotRight)\" y2=\"\(yy)\" stroke=\"#ffffff\" stroke-opacity=\"0.35\"/>"
      out +=
        "<text x=\"\(Self.number(Self.left - 6))\" y=\"\(yy)\" dy=\"4\" text-anchor=\"end\">\(TimeFormat.padded(hour, width: 2)):00</text>\n"
    }
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    for (i, day) in days.enumerated() where day.date.day == 1 {
      let xx = x(i)
      out +=
        "<line x1=\"\(xx)\" y1=\"\(y(0))\" x2=\"\(xx)\" y2=\"\(y(24 * 60))\" stroke=\"#ffffff\" stroke-opacity=\"0.35\"/>"
      out +=
        "<text x=\"\(Self.number(Self.left + (Double(i) + 15) * Self.dayWidth))\" y=\"\(Self.number(Self.top + plotHeight + 16))\" text-anchor=\"middle\">\(months[day.date.month - 1])</text>\n"
    }
    if let today, let i = days.firstIndex(where: { $0.date == today }) {
      let xx = Self.number(Self.left + (Double(i) + 0.5) * Self.dayWidth)
      out +=
        "<line class=\"today\" x1=\"\(xx)\" y1=\"\(Self.number(Self.top - 4))\" x2=\"\(xx)\" y2=\"\(y(24 * 60))\" stroke=\"#e74c3c\" stroke-width=\"2\"/>"
      out += "<text x=\"\(xx)\" y=\"\(Self.number(Self.top - 8))\" text-anchor=\"middle\">today</text>\n"
    }
    // The legend, one swatch per band and the noon line.
    var lx = Self.left
    let ly = Self.top + plotHeight + 34
    for band in Band.allCases.reversed() {
      out +=
        "<rect x=\"\(Self.number(lx))\" y=\"\(Self.number(ly))\" width=\"12\" height=\"12\" fill=\"\(band.colour)\" stroke=\"#888888\"/>"
      out += "<text x=\"\(Self.number(lx + 16))\" y=\"\(Self.number(ly + 10))\">\(band.name)</text>\n"
      lx += 16 + Double(band.name.count) * 6.2 + 14
    }
    out +=
      "<line x1=\"\(Self.number(lx))\" y1=\"\(Self.number(ly + 6))\" x2=\"\(Self.number(lx + 12))\" y2=\"\(Self.number(ly + 6))\" stroke=\"#c0392b\" stroke-width=\"2\"/>"
    out += "<text x=\"\(Self.number(lx + 16))\" y=\"\(Self.number(ly + 10))\">solar noon</text>\n"
    out += "</svg>\n"
    return out
  }

  /// A coordinate with at most two decimals, no trailing zeros.
  static func number(_ v: Double) -> String {
    let r = (v * 100).rounded() / 100
    return r == r.rounded() ? String(Int(r)) : String(r)
  }

  /// Text for SVG: `&`, `<`, `>` and quotes escaped.
  static func escaped(_ text: String) -> String {
    var out = ""
    for c in text {
      switch c {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      default: out.append(c)
      }
    }
    return out
  }
}
