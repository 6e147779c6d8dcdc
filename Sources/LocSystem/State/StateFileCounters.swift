import LocCore

/// What went wrong with the files of the state directory, counted for `status`
/// (`daemon.stateFiles`, docs/PROTOCOL.md): each count has a log line of its own.
public struct StateFileCounters: Sendable, Hashable {
  /// Files not used when read (a link, not a regular file, another owner, too large, not
  /// valid): state.json, timers.json, an apps store file.
  public var refused = 0
  /// Writes of a user's apps store file not done because the file would be larger than the
  /// limit (`[Apps] MaxStoreBytesPerUser=`): what the reader would refuse is never written.
  public var writesRefused = 0
  /// Writes that failed (a full disk, a read-only directory); tried again at the next change.
  public var writeFailures = 0

  /// No counts yet.
  public init() {}

  /// `refused`, `writesRefused`, `writeFailures`, in that order.
  public var all: [Counter] {
    [
      Counter("refused", refused), Counter("writesRefused", writesRefused),
      Counter("writeFailures", writeFailures),
    ]
  }
}
