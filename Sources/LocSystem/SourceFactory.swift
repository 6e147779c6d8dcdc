import LocCore

/// Builds the running source for a configured URI.
public enum SourceFactory {
  /// The source for `uri`, or nil when this build cannot serve it.
  public static func make(_ uri: SourceURI, _ id: SourceID, _ loop: EventLoop, _ sink: SourceSink) -> FixSource? {
    switch uri {
    default:
      return nil
    }
  }
}
