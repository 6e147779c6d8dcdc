import LocCore

/// The speed of a `SerialSource`'s line: the rate the URI fixed, or LocCore's `BaudHunt` over
/// `SourceURI.autoBaudRates` until the decoder sees valid sentences. Pure: the source reports
/// the decoder's running count of valid sentences and applies the rate it is given.
struct SerialSpeed {
  /// The rate of `baud=N`; nil while hunting (`baud=auto`).
  private let fixed: Int?
  /// The hunt of `baud=auto`.
  private var hunt: BaudHunt?

  /// The speed `baud` asks for.
  init(_ baud: SourceURI.Baud) {
    switch baud {
    case .auto:
      fixed = nil
      hunt = BaudHunt()
    case .fixed(let rate):
      fixed = rate
    }
  }

  /// The rate in use (or being tried).
  var rate: Int { fixed ?? hunt!.rate }

  /// Whether the rate is known: fixed, or a hunt that found it.
  var isSettled: Bool { hunt.map(\.isLocked) ?? true }

  /// The rates a hunt tries, in order (empty for a fixed rate).
  var rates: [Int] { hunt?.rates ?? [] }

  /// "no NMEA at 9600, 4800, 38400, 115200 baud" once a hunt has tried every rate without
  /// settling (it goes on trying); nil for a fixed rate, a settled hunt or a first round.
  var failure: String? {
    guard let hunt, !hunt.isLocked, hunt.failedRounds > 0 else { return nil }
    return "no NMEA at \(hunt.rates.map(String.init).joined(separator: ", ")) baud"
  }

  /// The counters for a snapshot: the rate, and the rates tried while hunting.
  var counters: [Counter] {
    var out = [Counter("baud", rate)]
    if let hunt { out.append(Counter("baudProbes", hunt.probes)) }
    return out
  }

  /// The device opened: true when the rate is still to be found, and a probe window at the
  /// current rate begins.
  mutating func opened(validSentences: Int) -> Bool {
    guard !isSettled else { return false }
    hunt!.beginWindow(validSentences: validSentences)
    return true
  }

  /// The decoder's count after some bytes: true when it settles the hunt at this rate.
  mutating func observe(validSentences: Int) -> Bool {
    guard !isSettled else { return false }
    return hunt!.observe(validSentences: validSentences)
  }

  /// A probe window ended with no settling: the next rate to try, and whether this ended
  /// the first pass over all rates; nil when the rate is settled.
  mutating func nextRate(validSentences: Int) -> (rate: Int, firstRoundFailed: Bool)? {
    guard !isSettled else { return nil }
    let rounds = hunt!.failedRounds
    let rate = hunt!.nextRate(validSentences: validSentences)
    return (rate, hunt!.failedRounds == 1 && rounds == 0)
  }

  /// The device was closed while acquisition is idle: a hunt not settled starts over; a rate
  /// found is kept, the receiver being the same.
  mutating func closedWhileIdle(validSentences: Int) {
    guard !isSettled else { return }
    hunt!.restart(validSentences: validSentences)
  }

  /// The device went away (unplugged): a hunt starts over even if it had settled, since
  /// another receiver may come back.
  mutating func deviceGone(validSentences: Int) {
    hunt?.restart(validSentences: validSentences)
  }
}
