import LocCore

/// Reads the app policy files of a directory (`/etc/locd/apps.d/*.conf`, docs/APPS.md):
/// each a regular file owned by root or by locd's own user and writable by nobody else (as
/// timer files), one `[App]` rule each, its `User=` names resolved to uids here.
public enum AppPolicyFiles {
  /// Most policy files read.
  public static let maxFiles = 4096

  /// The policy of `directory` and a problem for each file that could not be used. A
  /// missing directory has no rules and no problem.
  public static func load(directory: String, daemonUID: UInt32 = CurrentProcess.userID) -> (
    AppPolicy, [String]
  ) {
    var names: [String]
    do { names = try FileIO.directoryEntries(path: directory) } catch {
      if error.code == Errno.noSuchFileOrDirectory { return (AppPolicy(), []) }
      return (AppPolicy(), ["\(directory): \(error)"])
    }
    names = names.filter { $0.hasSuffix(".conf") && !$0.hasPrefix(".") }.sorted()
    var entries: [AppPolicy.Entry] = []
    var problems: [String] = []
    for (n, file) in names.enumerated() {
      let path = directory + "/" + file
      guard n < maxFiles else {
        problems.append("\(path): not loaded: more than \(maxFiles) policy files")
        continue
      }
      switch entry(path: path, daemonUID: daemonUID) {
      case .success(let e): entries.append(e)
      case .failure(let problem): problems.append(contentsOf: problem.lines)
      }
    }
    return (AppPolicy(entries), problems)
  }

  struct Problem: Error {
    var lines: [String]
  }

  static func entry(path: String, daemonUID: UInt32) -> Result<AppPolicy.Entry, Problem> {
    let bytes: [UInt8]
    switch TimerFiles.read(path: path, daemonUID: daemonUID) {
    case .success(let file): bytes = file.0
    case .failure(let problem): return .failure(Problem(lines: [problem.description]))
    }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      return .failure(Problem(lines: ["\(path): not valid UTF-8"]))
    }
    let (parsed, diagnostics) = AppRule.parse(fileText: text, fileName: path)
    guard let rule = parsed else { return .failure(Problem(lines: diagnostics.map(\.description))) }
    guard !rule.users.isEmpty else { return .success(AppPolicy.Entry(rule: rule, uids: nil, file: path)) }
    var uids = Set<UInt32>()
    for user in rule.users {
      if let uid = UInt32(user) {
        uids.insert(uid)
      } else if let account = CommandAccounts.account(named: user) {
        uids.insert(account.uid)
      } else {
        return .failure(Problem(lines: ["\(path): User=\(user): no such user"]))
      }
    }
    return .success(AppPolicy.Entry(rule: rule, uids: uids, file: path))
  }
}
