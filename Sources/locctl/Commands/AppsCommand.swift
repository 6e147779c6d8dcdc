import LocCore
import LocHost
import LocProtocol

/// `locctl apps [--user U] [--json]` lists apps with their authorization;
/// `locctl apps grant|deny|reset APP [--user U] [--always] [--reduced]` changes one (anyone
/// for their own apps, the administrator for other users').
enum AppsCommand {
  static let verbs = ["grant", "deny", "reset"]

  static let spec = CommandSpec(
    name: "apps", summary: "list apps and their location authorization; grant, deny or reset one",
    usage: [
      "apps [--user U] [--json]", "apps grant|deny|reset APP [--user U] [--always] [--reduced] [--json]",
    ],
    options: [
      .valued("user", "U", "the apps of this user (a name or uid; admin for another user's)"),
      .flag("always", "grant: always rather than while in use"),
      .flag("reduced", "grant: reduced (5 km) rather than full accuracy"),
    ],
    arguments: [.words(verbs), .live(.appIDs), .none],
    help: """
      Lists apps with their authorization, accuracy, whether they use the location now or when they
      last did, who decided and how their identity is known. Anyone sees their own apps; the
      administrator every user's, or U's. grant (while in use, or --always; with full or --reduced
      accuracy), deny, or reset (forget the decision, so that the app may ask again) changes one:
      anyone for their own apps, the administrator for other users'. A decision a policy file makes
      is refused (APPS.md).
      """,
    examples: [
      "locctl apps", "locctl apps grant org.example.Weather --always --reduced",
      "sudo locctl apps reset org.example.Maps --user alice",
    ],
    needsDaemon: true, run: run)

  static func run(_ invocation: Invocation) throws(UsageError) -> Int32 {
    var uid: UInt32? = nil
    if let user = invocation.value("user") {
      guard let id = Accounts.userID(user) else { throw UsageError("--user '\(user)': no such user") }
      uid = id
    }
    let json = invocation.json
    guard let verb = invocation.positionals.first else {
      guard !invocation.flag("always"), !invocation.flag("reduced") else {
        throw UsageError("--always and --reduced go with 'apps grant'")
      }
      return list(uid: uid, json: json, invocation)
    }
    let change: AppChange
    switch verb {
    case "grant":
      change = .grant(
        invocation.flag("always") ? .always : .whenInUse, invocation.flag("reduced") ? .reduced : .full)
    case "deny": change = .deny
    case "reset": change = .reset
    default:
      throw UsageError(
        "unknown action '\(verb)'" + Suggestion.hint(for: verb, among: verbs)
          + "; expected grant, deny or reset")
    }
    guard invocation.positionals.count == 2 else { throw UsageError("expected: apps \(verb) APP") }
    guard let app = AppID(invocation.positionals[1]) else {
      throw UsageError("'\(invocation.positionals[1])': \(AppID.rule)")
    }
    return withDaemon(invocation) { client throws(ControlClient.Failure) in
      let result = try client.call(.changeApp(app, uid: uid, change))
      Output.line(json ? result.json.serialized : line(result.app))
      return ExitStatus.ok
    }
  }

  static func list(uid: UInt32?, json: Bool, _ invocation: Invocation) -> Int32 {
    withDaemon(invocation) { client throws(ControlClient.Failure) in
      let result = try client.call(.listApps(uid: uid))
      if json {
        Output.line(result.json.serialized)
      } else if result.apps.isEmpty {
        Output.line("no apps")
      } else {
        for app in result.apps { Output.line(line(app)) }
      }
      return ExitStatus.ok
    }
  }

  /// One app as a line: who, status, accuracy, in use, last use, identity.
  static func line(_ a: AppListingView) -> String {
    var status = a.status.word
    if a.provisional { status += " (provisional)" }
    if a.once { status += " (once)" }
    var parts = ["\(Style.bold(Style.visible(a.app))) uid \(a.uid)", status]
    if a.status.known == .whenInUse || a.status.known == .always {
      parts.append(
        "\(a.accuracy.word) accuracy\(a.temporaryFullAccuracy ? " (temporary, while in use)" : "")")
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

}
