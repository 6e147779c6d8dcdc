import LocCore

/// Builds the running source for a configured URI.
public enum SourceFactory {
  /// The source for `uri`, or nil when this build cannot serve it.
  public static func make(_ uri: SourceURI, _ id: SourceID, _ loop: EventLoop, _ sink: SourceSink) -> FixSource? {
    switch uri {
    case .replay(let path, let speed, let loops):
      return ReplaySource(id: id, path: path, speed: speed, loops: loops, loop: loop, sink: sink)
    default:
      return nil
    }
  }
}
