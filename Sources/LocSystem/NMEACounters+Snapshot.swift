import LocCore

extension NMEACounters {
  /// The counters a source shows in `locctl status`, in a stable order.
  public var sourceCounters: [Counter] {
    [
      Counter("sentences", sentences), Counter("fixes", fixes), Counter("badChecksums", badChecksums),
      Counter("skipped", skipped), Counter("errors", errors), Counter("overlongLines", overlongLines),
      Counter("junkBytes", junkBytes), Counter("truncatedLines", truncatedLines),
      Counter("timeWentBackwards", timeWentBackwards),
    ]
  }
}
