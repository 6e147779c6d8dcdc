/// The static file (`[Position] StaticFile=`): read by the shell at start and whenever it
/// changes on disk; a new place (or none) is published and re-planned like the manual
/// location, never written to the state file (the file is its own record).
extension Engine {
  mutating func handleStaticFile(
    _ path: String, contents: String?, problem: String?, at now: Instant, into effects: inout [Effect]
  ) {
    let read = StaticFileState.read(path, text: contents, unreadable: problem, at: now)
    let before = positions.staticFile
    let moved = positions.setStatic(read)
    if let why = read.problem, why != before.problem {
      effects.append(.log(.warning, "static location file \(path) ignored: \(why)"))
      // Once per new problem, as the warning: the same file read again is not another value.
      if let off = read.outOfBounds {
        _ = positions.noteOutOfBounds(off, from: "static:\(path)", .staticFile, at: now)
      }
    }
    guard moved else { return }
    let what =
      read.position == nil
      ? "cleared (\(path) \(read.problem == nil ? "is gone" : "is unusable"))"
      : before.position == nil ? "set from \(path)" : "changed in \(path)"
    effects.append(.log(.notice, "static location \(what)"))
    if config.logLevel >= .debug, let c = read.position?.coordinate {
      effects.append(.log(.debug, "static location \(c.latitude.value),\(c.longitude.value)"))
    }
    publish(.location(resolve(at: now), fix: nil), at: now, into: &effects)
    answerLocates(at: now, into: &effects)
    regenerate(.staticLocation, at: now, into: &effects)
  }
}
