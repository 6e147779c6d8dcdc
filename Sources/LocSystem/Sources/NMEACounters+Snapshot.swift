import LocCore

extension NMEACounters {
  /// The counters a source shows in `locctl status`, in a stable order: what was decoded,
  /// then every kind of bad input (see docs/NMEA.md and docs/SOURCES.md).
  public var sourceCounters: [Counter] {
    [
      Counter("sentences", sentences), Counter("fixes", fixes), Counter("badChecksums", badChecksums),
      Counter("skipped", skipped), Counter("errors", errors), Counter("overlongLines", overlongLines),
      Counter("junkBytes", junkBytes), Counter("truncatedLines", truncatedLines),
      Counter("unterminatedLines", unterminatedLines), Counter("timeWentBackwards", timeWentBackwards),
      Counter("lateSentences", lateSentences), Counter("undatedEpochs", undatedEpochs),
      Counter("rolloverCorrections", rolloverCorrections), Counter("rolloverRefused", rolloverRefused),
      Counter("implausibleValues", implausibleValues),
    ]
  }
}
