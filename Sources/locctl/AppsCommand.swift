import LocCore
import LocProtocol
import LocSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `locctl apps [--user U] [--json]` lists apps with their authorization;
/// `locctl apps grant|deny|reset APP [--user U] [--always] [--reduced]` changes one (anyone
/// for their own apps, the administrator for other users').
enum AppsCommand: LocctlCommand {
  static let name = "apps"
  static let summary = "list apps and their location authorization; grant, deny or reset one"
  static let usageLine =
    "usage: locctl apps [--user U] [--json] | locctl apps grant|deny|reset APP [--user U] [--always] [--reduced]"

  static func run(_ arguments: [String], socket: String) -> Int32 {
    guard
      let options = parseOptions(
        arguments, valued: ["user"], flags: ["json", "always", "reduced"], command: name)
    else { return ExitStatus.usage }
    var uid: UInt32? = nil
    if let user = options.value("user") {
      guard let id = userID(user) else {
        printError("locctl apps: no such user '\(user)'")
        return ExitStatus.usage
      }
      uid = id
    }
    guard let verb = options.positionals.first else {
      return list(uid: uid, json: options.flag("json"), socket)
    }
    guard options.positionals.count == 2, let app = AppID(options.positionals[1]) else {
      printError(options.positionals.count == 2 ? "locctl apps: \(AppID.rule)" : usageLine)
      return ExitStatus.usage
    }
    let change: AppChange
    switch verb {
    case "grant":
      change = .grant(
        options.flag("always") ? .always : .whenInUse, options.flag("reduced") ? .reduced : .full)
    case "deny": change = .deny
    case "reset": change = .reset
    default:
      printError(usageLine)
      return ExitStatus.usage
    }
    return withDaemon(socket) { client throws(ControlClient.Failure) in
      let result = try client.call(.changeApp(app, uid: uid, change))
      if options.flag("json") { print(result.json.serialized) } else { print(line(result.app)) }
      return ExitStatus.ok
    }
  }

  static func list(uid: UInt32?, json: Bool, _ socket: String) -> Int32 {
    withDaemon(socket) { client throws(ControlClient.Failure) in
      let result = try client.call(.listApps(uid: uid))
      if json {
        print(result.json.serialized)
      } else if result.apps.isEmpty {
        print("no apps")
      } else {
        for app in result.apps { print(line(app)) }
      }
      return ExitStatus.ok
    }
  }

  /// One app as a line: who, status, accuracy, in use, last use, identity.
  static func line(_ a: AppListingView) -> String {
    var status = a.status.word
    if a.provisional { status += " (provisional)" }
    if a.once { status += " (once)" }
    var parts = ["\(Style.bold(a.app)) uid \(a.uid)", status]
    if a.status.known == .whenInUse || a.status.known == .always {
      parts.append("\(a.accuracy.word) accuracy")
    }
    if a.using {
      parts.append(Style.green("using the location now"))
    } else if a.inUse {
      parts.append("in use")
    }
    if let last = a.lastUsed, !a.using { parts.append("last used \(last.iso8601(fractionDigits: 0))") }
    if let v = a.verified { parts.append(v.word == "claimed" ? "identity claimed" : "verified by \(v.word)") }
    if let by = a.decidedBy { parts.append("decided by \(by)" + (a.policyFile.map { " (\($0))" } ?? "")) }
    return parts.joined(separator: ", ")
  }

  /// A user name or uid as a uid (getpwnam_r(3)).
  static func userID(_ user: String) -> UInt32? {
    if let uid = UInt32(user) { return uid }
    var pwd = passwd()
    var result: UnsafeMutablePointer<passwd>? = nil
    var buffer = [CChar](repeating: 0, count: 16384)
    guard getpwnam_r(user, &pwd, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
    return pwd.pw_uid
  }
}
