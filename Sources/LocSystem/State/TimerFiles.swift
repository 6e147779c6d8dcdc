import LocCore

/// Reads the timer files of a directory (`/etc/locd/timers.d/*.timer`). A file is used only if
/// it is a regular file owned by root or by locd's own user and writable by nobody else; a
/// `Command=` needs more: the file and the directory owned by root and writable only by root.
/// A `Command=` that cannot work as things are (an unknown user, a user locd cannot switch
/// to, a missing or unsafe program: `CommandAccounts`) is reported at load time; the timer is
/// still loaded (it fires its event, and the command runs once the problem is fixed).
public enum TimerFiles {
  /// Largest timer file read.
  public static let sizeLimit = 64 * 1024

  /// The timers defined in `directory` (at most `limit` files, in name order) and a problem for
  /// each file that could not be used, or whose command cannot run as `commandUser` (the
  /// configured `CommandUser=`) says. A missing directory has no timers and no problem.
  public static func load(
    directory: String, limit: Int, commandUser: String? = nil, accounts: CommandAccounts = .current(),
    daemonUID: UInt32 = CurrentProcess.userID
  ) -> (timers: [TimerDefinition], problems: [String]) {
    var names: [String]
    do { names = try FileIO.directoryEntries(path: directory) } catch {
      if error.code == Errno.noSuchFileOrDirectory { return ([], []) }
      return ([], ["\(directory): \(error)"])
    }
    names = names.filter { $0.hasSuffix(".timer") && !$0.hasPrefix(".") }.sorted()
    let dirSafe =
      (try? FileIO.status(path: directory)).map { $0.owner == 0 && $0.permissions & 0o022 == 0 } ?? false
    var timers: [TimerDefinition] = []
    var problems: [String] = []
    var overLimit: [String] = []
    for file in names {
      let path = directory + "/" + file
      guard timers.count < limit else {
        overLimit.append(file)
        continue
      }
      let bytes: [UInt8]
      let ownerUID: UInt32
      switch read(path: path, daemonUID: daemonUID) {
      case .success(let file): (bytes, ownerUID) = file
      case .failure(let problem):
        problems.append(problem.description)
        continue
      }
      guard let text = String(validating: bytes, as: UTF8.self) else {
        problems.append("\(path): not valid UTF-8")
        continue
      }
      let name = String(file.dropLast(".timer".count))
      switch TimerDefinition.parse(
        fileText: text, name: name, path: path, commandsAllowed: dirSafe && ownerUID == 0)
      {
      case .success(let t):
        timers.append(t)
        for p in accounts.problems(of: t.action, configuredUser: commandUser) {
          problems.append("\(path): Command=: \(p); the timer fires, but its command will not run")
        }
      case .failure(let f): problems.append(contentsOf: f.problems)
      }
    }
    return (timers, summarized(problems, overLimit: overLimit, directory: directory, limit: limit))
  }

  /// Most problems reported one by one; the rest are counted in one line, so a directory of
  /// ten thousand broken files costs a few log lines per reload, not ten thousand.
  static let problemsListed = 20

  /// `problems` with at most `problemsListed` lines of their own, and the files left out
  /// for `limit` in one line (the first and the last named).
  static func summarized(_ problems: [String], overLimit: [String], directory: String, limit: Int) -> [String]
  {
    var out = Array(problems.prefix(problemsListed))
    if problems.count > problemsListed {
      out.append("\(directory): \(problems.count - problemsListed) more problems with timer files not listed")
    }
    if let first = overLimit.first, let last = overLimit.last {
      let which = overLimit.count == 1 ? first : "\(first) to \(last)"
      out.append(
        "\(directory): \(overLimit.count) timer files not loaded (\(which)): more than \(limit) timer files (MaxTimers=)"
      )
    }
    return out
  }

  /// Why a timer file was not read; the text names the file.
  struct Problem: Error, CustomStringConvertible {
    /// `PATH: reason`.
    var description: String
  }

  /// The bytes of the timer file at `path` and its owner, if it may be used: opened without
  /// following a symbolic link (O_NOFOLLOW) or waiting on a FIFO (O_NONBLOCK), a regular
  /// file, owned by root or `daemonUID`, writable by nobody else, at most `sizeLimit` bytes.
  static func read(path: String, daemonUID: UInt32) -> Result<([UInt8], UInt32), Problem> {
    let file: FileDescriptor
    do { file = try FileIO.openForReadingNoFollow(path: path) } catch {
      let hint = error.code == Errno.tooManySymbolicLinkLevels ? " (symbolic links are not followed)" : ""
      return .failure(Problem(description: "\(path): \(error)\(hint)"))
    }
    guard let info = try? file.status(), info.kind == .regular else {
      return .failure(Problem(description: "\(path): not a regular file"))
    }
    guard info.owner == 0 || info.owner == daemonUID else {
      return .failure(Problem(description: "\(path): not loaded: owned by uid \(info.owner), not by root"))
    }
    guard info.permissions & 0o022 == 0 else {
      return .failure(Problem(description: "\(path): not loaded: writable by group or others (chmod go-w)"))
    }
    do { return .success((try FileIO.readAll(from: file, limit: sizeLimit), info.owner)) } catch {
      return .failure(Problem(description: "\(path): \(error)"))
    }
  }
}
