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
  /// Writes that failed (a full disk, a read-only directory); tried again at the next change
  /// and every `StateFiles.retryInterval`.
  public var writeFailures = 0
  /// Files written and synced (each user's apps file counts one).
  public var writes = 0
  /// Changes answered `not-saved`: in effect, but their file could not be written.
  public var notSaved = 0

  /// No counts yet.
  public init() {}

  /// `refused`, `writesRefused`, `writeFailures`, `writes`, `notSaved`, in that order.
  public var all: [Counter] {
    [
      Counter("refused", refused), Counter("writesRefused", writesRefused),
      Counter("writeFailures", writeFailures), Counter("writes", writes), Counter("notSaved", notSaved),
    ]
  }
}
