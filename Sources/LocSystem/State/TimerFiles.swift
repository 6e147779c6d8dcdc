import LocCore

#if canImport(Glibc)
  import Glibc
#endif

/// Reads the timer files of a directory (`/etc/locd/timers.d/*.timer`). A file is used only if
/// it is a regular file owned by root or by locd's own user and writable by nobody else; a
/// `Command=` needs more: the file and the directory owned by root and writable only by root.
public enum TimerFiles {
  /// Largest timer file read.
  public static let sizeLimit = 64 * 1024

  /// The timers defined in `directory` (at most `limit` files, in name order) and a problem for
  /// each file that could not be used. A missing directory has no timers and no problem.
  public static func load(directory: String, limit: Int, daemonUID: UInt32 = getuid())
    -> (timers: [TimerDefinition], problems: [String])
  {
    guard let dir = opendir(directory) else {
      if errno == ENOENT { return ([], []) }
      return ([], ["\(directory): \(Errno(call: "opendir"))"])
    }
    var names: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafePointer(to: entry.pointee.d_name) {
        $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
      }
      if name.hasSuffix(".timer"), !name.hasPrefix(".") { names.append(name) }
    }
    closedir(dir)
    names.sort()
    var dirInfo = stat()
    let dirSafe = stat(directory, &dirInfo) == 0 && dirInfo.st_uid == 0 && dirInfo.st_mode & 0o022 == 0
    var timers: [TimerDefinition] = []
    var problems: [String] = []
    for file in names {
      let path = directory + "/" + file
      guard timers.count < limit else {
        problems.append("\(path): not loaded: more than \(limit) timer files")
        continue
      }
      let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
      guard fd >= 0 else {
        problems.append(
          "\(path): \(Errno(call: "open"))\(errno == ELOOP ? " (symbolic links are not followed)" : "")")
        continue
      }
      defer { close(fd) }
      var info = stat()
      guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
        problems.append("\(path): not a regular file")
        continue
      }
      guard info.st_uid == 0 || info.st_uid == daemonUID else {
        problems.append("\(path): not loaded: owned by uid \(info.st_uid), not by root")
        continue
      }
      guard info.st_mode & 0o022 == 0 else {
        problems.append("\(path): not loaded: writable by group or others (chmod go-w)")
        continue
      }
      let bytes: [UInt8]
      do { bytes = try FileIO.readAll(fd: fd, limit: sizeLimit) } catch {
        problems.append("\(path): \(error)")
        continue
      }
      guard let text = String(validating: bytes, as: UTF8.self) else {
        problems.append("\(path): not valid UTF-8")
        continue
      }
      let name = String(file.dropLast(".timer".count))
      switch TimerDefinition.parse(
        fileText: text, name: name, path: path, commandsAllowed: dirSafe && info.st_uid == 0)
      {
      case .success(let t): timers.append(t)
      case .failure(let f): problems.append(contentsOf: f.problems)
      }
    }
    return (timers, problems)
  }
}
