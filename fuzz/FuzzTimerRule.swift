// One fuzz target (fuzz/Main.swift lists them; fuzz/run.sh builds and runs them): timer rules,
// days, time spans and distances. Besides "no crash, no trap": each that parses writes back
// (`description`, `TimeSpan.format`, `formatDistance`) to text that parses to the same value.

func fuzzTimerRule(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)

  if let rule = try? TimerRule(parsing: text) {
    let written = rule.description
    guard let again = try? TimerRule(parsing: written) else { fatalError("'\(written)' does not parse") }
    if again != rule { fatalError("'\(text)' -> '\(written)' -> \(again), not \(rule)") }
  }
  if let weekdays = Weekdays(parsing: text), Weekdays(parsing: weekdays.description) != weekdays {
    fatalError("days '\(text)' -> '\(weekdays)' do not read back")
  }
  if let span = try? TimeSpan.parse(text) {
    let written = TimeSpan.format(span)
    if (try? TimeSpan.parse(written)) != span { fatalError("span '\(text)' -> '\(written)' does not read back") }
    if span > TimeSpan.maximum || span < .zero { fatalError("span '\(text)' out of bounds: \(span)") }
  }
  if let distance = DaemonConfig.parseDistance(text) {
    let written = DaemonConfig.formatDistance(distance)
    if DaemonConfig.parseDistance(written) != distance, distance.value < 1e15 {
      fatalError("distance '\(text)' -> '\(written)' does not read back")
    }
  }
  return 0
}
