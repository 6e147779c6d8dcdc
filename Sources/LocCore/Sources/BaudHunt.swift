/// Automatic serial speed detection (`serial:...?baud=auto`): try each rate for a probe
/// window; the first one at which the decoder sees `sentencesToLock` sentences with valid
/// checksums wins. At a wrong speed the bytes are garbage and a valid checksummed sentence
/// is vanishingly unlikely, so two are proof enough. Rates are tried round and round until
/// one works; after a reopen the hunt starts at the rate that worked last.
public struct BaudHunt: Hashable, Sendable {
  /// Valid sentences needed to settle on a rate.
  public static let sentencesToLock = 2
  /// How long one rate is tried: a receiver sends at least one burst a second, so a few
  /// seconds show several sentences (microseconds).
  public static let probeMicroseconds: UInt64 = 2_500_000

  /// The rates tried, in order.
  public let rates: [Int]
  /// Index of the rate in use.
  public private(set) var index = 0
  /// Whether a rate has been confirmed.
  public private(set) var isLocked = false
  /// Complete passes over all rates without success.
  public private(set) var failedRounds = 0
  /// Rates tried in total (each window counts).
  public private(set) var probes = 1
  private var validAtWindowStart = 0

  /// A hunt over `rates` (not empty).
  public init(rates: [Int] = SourceURI.autoBaudRates) {
    precondition(!rates.isEmpty, "no rates to try")
    self.rates = rates
  }

  /// The rate to use now.
  public var rate: Int { rates[index] }

  /// Starts a window at the current rate; `validSentences` is the decoder's running count.
  public mutating func beginWindow(validSentences: Int) {
    validAtWindowStart = validSentences
  }

  /// Reports the decoder's running count of valid sentences; true when this confirms the rate.
  public mutating func observe(validSentences: Int) -> Bool {
    guard !isLocked else { return false }
    if validSentences - validAtWindowStart >= BaudHunt.sentencesToLock { isLocked = true }
    return isLocked
  }

  /// The window ended without confirmation: moves to the next rate and returns it.
  public mutating func nextRate(validSentences: Int) -> Int {
    guard !isLocked else { return rate }
    index += 1
    if index == rates.count {
      index = 0
      failedRounds += 1
    }
    probes += 1
    validAtWindowStart = validSentences
    return rate
  }

  /// The device was closed: the next open hunts again, starting at the current rate.
  public mutating func restart(validSentences: Int) {
    isLocked = false
    failedRounds = 0
    validAtWindowStart = validSentences
  }
}
