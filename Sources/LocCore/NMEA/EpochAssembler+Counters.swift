extension EpochAssembler {
  /// What the assembler has seen.
  public struct Counters: Hashable, Sendable {
    /// Fixes emitted.
    public var fixes = 0
    /// Epochs with a time but no date to go with it (not emitted).
    public var undatedEpochs = 0
    /// Fixes whose time is earlier than the fix before them (emitted anyway).
    public var timeWentBackwards = 0
    /// Sentences that arrived after their epoch had been emitted (dropped).
    public var lateSentences = 0
    /// Fixes moved forward by 1024-week periods.
    public var rolloverCorrections = 0
    /// Fixes left as they came because the move would put them in the future.
    public var rolloverRefused = 0
    /// Values dropped for lying outside `FixPlausibility`'s bounds (a speed of 1e200 knots).
    public var implausibleValues = 0

    /// All zero.
    public init() {}
  }
}
