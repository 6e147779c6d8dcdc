import LocCore
import LocSystem

/// `locbench solar [CSV] [--rounds N]`: the nine standard events for every location-day of the
/// reference fixture (Tests/Fixtures/solar/reference.csv), timed; bench/20-solar.sh runs astral
/// on the same location-days.
enum SolarBenchmark: Benchmark {
  static let name = "solar"

  struct LocationDay {
    var calculator: SolarCalculator
    var zone: ZoneRules
    var date: CivilDate
    var interval: Range<Instant>
  }

  static func run(_ arguments: [String]) -> Int32 {
    let (path, rounds) = pathAndRounds(arguments, path: "Tests/Fixtures/solar/reference.csv", rounds: 20)
    let days: [LocationDay]
    do {
      days = try load(path)
    } catch {
      print("locbench solar: \(path): \(error)")
      return 1
    }

    // Warm up, then time whole days (zone day bounds included) and the solver alone.
    var checksum: Int64 = 0
    for day in days { checksum &+= sum(day.calculator.day(day.date, in: day.zone)) }
    var start = now()
    for _ in 0..<rounds {
      for day in days { checksum &+= sum(day.calculator.day(day.date, in: day.zone)) }
    }
    let withZone = now() - start
    start = now()
    for _ in 0..<rounds {
      for day in days { checksum &+= sum(day.calculator.day(day.date, interval: day.interval)) }
    }
    let solverOnly = now() - start
    let events = Double(days.count * SolarEvent.standard.count * rounds)
    let perDay = Double(days.count * rounds)
    print("solar: \(days.count) location-days x \(SolarEvent.standard.count) events x \(rounds) rounds")
    print(
      "locd events/s \(Int(events / withZone)) (\(format(withZone / perDay * 1e6)) us per day, local-day bounds included)"
    )
    print(
      "locd solver events/s \(Int(events / solverOnly)) (\(format(solverOnly / perDay * 1e6)) us per day of nine events)"
    )
    print("checksum \(checksum)")
    return 0
  }

  static func sum(_ day: SolarDay) -> Int64 {
    var s: Int64 = 0
    for (_, occurrence) in day {
      if case .at(let t) = occurrence { s &+= t.microsecondsSinceEpoch }
    }
    return s
  }

  /// The distinct location-days of the reference CSV (name,lat,lon,tz,date,...).
  static func load(_ path: String) throws -> [LocationDay] {
    let bytes = try FileIO.read(path: path)
    let database = ZoneDatabase()
    var seen = Set<String>()
    var out: [LocationDay] = []
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n").dropFirst() {
      let f = line.split(separator: ",", omittingEmptySubsequences: false)
      guard f.count >= 5 else { continue }
      let key = "\(f[0])|\(f[4])"
      guard !seen.contains(key) else { continue }
      seen.insert(key)
      guard let lat = Double(f[1]), let lon = Double(f[2]), let coordinate = Coordinate(lat: lat, lon: lon),
        let date = CivilDate(iso: f[4])
      else { continue }
      let zone = try database.rules(named: String(f[3]))
      out.append(
        LocationDay(
          calculator: SolarCalculator(coordinate: coordinate), zone: zone, date: date,
          interval: zone.localDay(date)))
    }
    return out
  }

  /// CPU time of this process: the machines are shared, and waiting for a core is not work.
  static func now() -> Double {
    Double(Clocks.processCPUNanoseconds()) / 1e9
  }

  static func format(_ value: Double) -> String {
    let scaled = (value * 100).rounded() / 100
    return String(scaled)
  }
}
