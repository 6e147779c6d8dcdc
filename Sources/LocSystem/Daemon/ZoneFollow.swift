/// The zones' data and the watch on its directories: read at start, read again on reload and
/// when tzdata changes on disk (Daemon+ZoneData).
final class ZoneFollow {
  /// Where the zones come from.
  let data: ZoneData
  /// The watch on the zone directories, when it could be set up.
  var watcher: ZoneDataWatcher?

  init(_ data: ZoneData) { self.data = data }
}
