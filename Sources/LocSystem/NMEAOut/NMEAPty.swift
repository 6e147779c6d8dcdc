import LocCore

/// The NMEA output (docs/NMEAOUT.md): a pseudo-terminal at a stable link that streams RMC,
/// GGA, GSA, VTG and GSV made from each fix (NMEAWriter), for programs that read only a
/// serial GPS. It wants fixes only while a program has it open (checked every second: the
/// master reports a hang-up while none does), so an unread pty never keeps the receiver
/// awake. A reader that falls behind loses sentences, never the daemon's time (counted).
final class NMEAPty {
  /// What the output tells the daemon.
  struct Handlers {
    /// A reader came (true) or the last one left (false): subscribe or unsubscribe.
    var wanted: (Bool) -> Void
    /// Each source's latest satellites.
    var skies: () -> [SourceSky]
    /// Whether the source of this URI sends its own sentences (then those are passed on
    /// instead of sentences rebuilt from its fixes).
    var sendsSentences: (String) -> Bool
    /// Log a line.
    var log: (LogLevel, String) -> Void
  }

  /// What it counts.
  struct Counters: Equatable {
    /// Times a program opened it while none had.
    var readers = 0
    /// Fixes written.
    var cycles = 0
    /// Sentences written, rebuilt from fixes.
    var sentences = 0
    /// The receiver's own sentences passed on.
    var relayed = 0
    /// Cycles dropped because the reader was behind.
    var dropped = 0
  }

  let settings: NMEAOutSettings
  private let handlers: Handlers
  private var master: PtyMaster?
  private var timer: (any LoopTimer)?
  private let loop: EventLoop
  private(set) var slave: String?
  private(set) var counters = Counters()
  /// Whether a reader was there at the last check.
  private var reading = false
  /// Whether a program reads it now (as of the last check).
  var isReading: Bool { reading && master != nil }

  init(loop: EventLoop, settings: NMEAOutSettings, handlers: Handlers) {
    self.loop = loop
    self.settings = settings
    self.handlers = handlers
  }

  /// Makes the pty and its link; a failure is logged and the rest of locd goes on.
  func start(gid: UInt32?) {
    do {
      let m = try PseudoTerminal.open(gid: gid, mode: settings.mode)
      let path = m.slave
      let directory = String(settings.link[..<(settings.link.lastIndex(of: "/") ?? settings.link.startIndex)])
      if !directory.isEmpty { try FileIO.makeDirectory(path: directory, mode: 0o755) }
      try PseudoTerminal.link(path, at: settings.link)
      master = m
      slave = path
      let t = try loop.makeTimer(clock: .monotonic, accuracyMicroseconds: 100_000) { [weak self] in
        self?.check()
      }
      timer = t
      t.arm(atMicroseconds: loop.monotonicMicroseconds + 1_000_000)
      handlers.log(.info, "NMEA output on \(settings.link) (\(path))")
    } catch {
      handlers.log(.error, "NMEA output: cannot make the pseudo-terminal at \(settings.link): \(error)")
    }
  }

  /// Whether a program has it open now.
  private func check() {
    guard let master else { return }
    let now = PseudoTerminal.hasReader(master.descriptor)
    if now != reading {
      reading = now
      if now { counters.readers += 1 }
      handlers.log(.debug, "NMEA output: \(now ? "a program opened it" : "no program has it open")")
      handlers.wanted(now)
    }
    timer?.arm(atMicroseconds: loop.monotonicMicroseconds + 1_000_000)
  }

  /// A position for the output: a fresh fix becomes one cycle of sentences.
  func deliver(_ notice: Notice) {
    guard case .location(let resolved, let fix?) = notice, resolved.tier == .fix, let master, reading else {
      return
    }
    // A receiver's own sentences went out as they came (`relay`): none rebuilt for it.
    if let source = resolved.position?.source, handlers.sendsSentences(source) { return }
    let sky = handlers.skies().first { $0.source == resolved.position?.source }?.sky
    let sentences = NMEAWriter.cycle(fix, sky: sky)
    if PseudoTerminal.write(Array(sentences.joined().utf8), to: master.descriptor) {
      counters.cycles += 1
      counters.sentences += sentences.count
    } else {
      counters.dropped += 1
    }
  }

  /// One of a receiver's own sentences (checked: `RelayedSentence`), written as it came.
  func relay(_ sentence: String) {
    guard let master, reading else { return }
    if PseudoTerminal.write(Array(sentence.utf8), to: master.descriptor) {
      counters.relayed += 1
    } else {
      counters.dropped += 1
    }
  }

  /// Status: the link, the pty, whether it is read, the counters.
  var report: NMEAOutReport {
    NMEAOutReport(
      link: settings.link, pty: slave, reading: reading,
      counters: [
        Counter("readers", counters.readers), Counter("cycles", counters.cycles),
        Counter("sentences", counters.sentences), Counter("relayed", counters.relayed),
        Counter("dropped", counters.dropped),
      ])
  }

  /// Removes the link and closes the pty.
  func stop() {
    timer?.cancel()
    timer = nil
    if master != nil { PseudoTerminal.unlinkIfLink(settings.link) }
    master = nil
    if reading { handlers.wanted(false) }
    reading = false
  }
}
