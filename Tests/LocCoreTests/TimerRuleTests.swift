import LocCore
import Testing

@Suite struct TimerRuleTests {
  @Test func solarRulesWithOffsets() throws {
    let r = try TimerRule(parsing: "sunset-30m")
    #expect(r.anchor == .solar(.sunset, offset: .seconds(-1800)))
    #expect(try TimerRule(parsing: "civil-dusk+10m").anchor == .solar(.civilDusk, offset: .seconds(600)))
    #expect(try TimerRule(parsing: "civil_dusk+1h30m").anchor == .solar(.civilDusk, offset: .seconds(5400)))
    #expect(try TimerRule(parsing: "sunrise").anchor == .solar(.sunrise, offset: .zero))
    #expect(try TimerRule(parsing: "solar-noon").anchor == .solar(.solarNoon, offset: .zero))
    #expect(
      try TimerRule(parsing: "elevation:-8.5:evening").anchor
        == .solar(.elevation(-8.5, .setting), offset: .zero))
    #expect(
      try TimerRule(parsing: "elevation:-8.5:evening-15m").anchor
        == .solar(.elevation(-8.5, .setting), offset: .seconds(-900)))
    #expect(try TimerRule(parsing: "golden-hour-evening-start").solarEvent == .eveningGoldenHourStart)
  }

  @Test func wallClockAndWeekdays() throws {
    let r = try TimerRule(parsing: "07:30 Mon-Fri")
    #expect(r.anchor == .wallClock(secondOfDay: 7 * 3600 + 30 * 60))
    let monday = CivilDate(year: 2026, month: 6, day: 22)!
    #expect(r.weekdays.contains(monday))
    #expect(!r.weekdays.contains(monday.adding(days: 5)))  // Saturday
    #expect(try TimerRule(parsing: "23:59:59").anchor == .wallClock(secondOfDay: 86_399))
    #expect(try TimerRule(parsing: "sunset Sat,Sun").weekdays == Weekdays(parsing: "Sat-Sun"))
    #expect(Weekdays(parsing: "Fri..Mon")?.description == "Mon,Fri-Sun")
    #expect(Weekdays(parsing: "mon,wed-fri")?.description == "Mon,Wed-Fri")
    #expect(Weekdays(parsing: "Sat,Sun")?.description == "Sat,Sun")
  }

  @Test func canonicalTextReadsBackTheSame() throws {
    for text in [
      "sunset-30m", "civil-dusk+10m", "07:30 Mon-Fri", "elevation:-8.5:evening+1h5m", "solar-noon Sat,Sun",
      "06:00:30",
    ] {
      let rule = try TimerRule(parsing: text)
      #expect(rule.description == text)
      #expect(try TimerRule(parsing: rule.description) == rule)
    }
  }

  @Test func badRulesSayWhatIsWrong() {
    for (text, words) in [
      ("", "empty"), ("sunsett", "neither"), ("25:00", "wall-clock"), ("7:3", "wall-clock"),
      ("sunset-13h", "at most 12h"),
      ("sunset Mon-Funday", "list of days"), ("sunset Mon extra", "too many"),
      ("elevation:95:evening", "neither"),
    ] {
      #expect(throws: TimerRule.ParseError.self) { try TimerRule(parsing: text) }
      do {
        _ = try TimerRule(parsing: text)
      } catch {
        #expect(error.description.contains(words), "\(text): \(error)")
      }
    }
  }

  @Test func timerFileWithEachAction() throws {
    let text = """
      # dims the screen
      [Timer]
      Rule=sunset-30m Mon-Fri
      Missed=once

      [Action]
      Command=/usr/local/bin/dim --level "30 %" 'a b'
      User=nobody
      """
    let t = try TimerDefinition.parse(
      fileText: text, name: "dim", path: "/etc/locd/timers.d/dim.timer", commandsAllowed: true
    )
    .get()
    #expect(t.rule == (try TimerRule(parsing: "sunset-30m Mon-Fri")))
    #expect(t.missed == .once)
    #expect(t.action == .command(argv: ["/usr/local/bin/dim", "--level", "30 %", "a b"], user: "nobody"))
    let unit = try TimerDefinition.parse(
      fileText: "[Timer]\nRule=07:30\n[Action]\nUnit=wake.service\n", name: "wake", path: "p",
      commandsAllowed: false
    ).get()
    #expect(unit.action == .startUnit("wake.service"))
    #expect(unit.missed == .skip)
  }

  @Test func timerFileProblemsCarryLines() {
    let refused = TimerDefinition.parse(
      fileText: "[Timer]\nRule=sunset\n[Action]\nCommand=/bin/true\n", name: "x", path: "f.timer",
      commandsAllowed: false)
    guard case .failure(let f) = refused else {
      Issue.record("a command in a non-root file must fail"); return
    }
    #expect(
      f.problems == ["f.timer:4: Command= is only allowed in files owned by root and not writable by others"])
    let bad = TimerDefinition.parse(
      fileText: "[Timer]\nRule=sunrise+\nMissed=sometimes\nColour=red\n[Action]\nCommand=dim\n", name: "x",
      path: "f", commandsAllowed: true)
    guard case .failure(let g) = bad else { Issue.record("expected problems"); return }
    #expect(g.problems.count == 4)
    #expect(g.problems.allSatisfy { $0.hasPrefix("f:") })
    #expect(g.problems.contains { $0.contains("absolute path") })
    guard
      case .failure = TimerDefinition.parse(
        fileText: "[Timer]\n", name: "x", path: "f", commandsAllowed: true)
    else {
      Issue.record("a file without Rule= must fail"); return
    }
    #expect(!TimerDefinition.isValidName("../etc"))
    #expect(TimerDefinition.isValidName("dim-screen@home.1"))
  }

  @Test func commandSplittingHasNoShell() {
    #expect(
      TimerAction.splitCommand(#"/bin/echo $HOME "a \"b\"" c\ d"#) == [
        "/bin/echo", "$HOME", #"a "b""#, "c d",
      ])
    #expect(TimerAction.splitCommand(#"/bin/echo "open"#) == nil)
    #expect(TimerAction.splitCommand("/bin/echo ''") == ["/bin/echo", ""])
    #expect(TimerAction.isValidUnitName("night-mode.service"))
    #expect(!TimerAction.isValidUnitName("night mode.service"))
    #expect(!TimerAction.isValidUnitName("night-mode"))
  }

  @Test func storeRoundTripsWithoutCoordinatesOrCommands() throws {
    let store = TimerStore(
      checkpoint: at("2026-06-21T12:00:00Z"),
      runtime: [
        TimerDefinition(
          name: "lamp", rule: try TimerRule(parsing: "sunset-30m Mon-Fri"),
          action: .startUnit("lamp.service"), missed: .once),
        TimerDefinition(name: "ping", rule: try TimerRule(parsing: "07:30"), action: .event, missed: .all),
      ],
      records: [
        "lamp": TimerRecord(
          handledDate: CivilDate(year: 2026, month: 6, day: 20), lastFiredAt: at("2026-06-20T19:20:00Z"),
          since: at("2026-01-01T00:00:00Z")),
        "ping": TimerRecord(since: at("2026-06-01T00:00:00Z")),
      ])
    let bytes = store.encoded()
    #expect(try TimerStore(decoding: bytes) == store)
    let text = String(decoding: bytes, as: UTF8.self)
    #expect(!text.contains("lat") && !text.contains("lon"))
    var withCommand = store
    withCommand.runtime.append(
      TimerDefinition(
        name: "cmd", rule: try TimerRule(parsing: "sunrise"), action: .command(argv: ["/bin/true"], user: nil)
      ))
    #expect(try TimerStore(decoding: withCommand.encoded()).runtime.count == 2)
    #expect(throws: TimerStore.DecodeError.self) { try TimerStore(decoding: Array(#"{"version":2}"#.utf8)) }
    #expect(throws: TimerStore.DecodeError.self) { try TimerStore(decoding: Array("{".utf8)) }
  }
}
