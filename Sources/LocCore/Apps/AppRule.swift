/// One policy file of `/etc/locd/apps.d` (`*.conf`, locd.conf's syntax): what a managed
/// machine decides for an app, before anyone is asked (docs/APPS.md, "Policy").
///
/// ```
/// [App]
/// ID=org.example.Weather     # or * for every app without a file of its own
/// User=alice                 # optional, repeatable: only these users (names or uids)
/// Authorization=always       # ask (default), when-in-use, always, denied, restricted
/// Accuracy=reduced           # the most the app may get: full (default) or reduced
/// ```
public struct AppRule: ConfigTable, Hashable {
  /// What the policy answers to a request.
  public enum Preset: String, Sendable, Hashable, CaseIterable {
    /// Nothing: the user's agent is asked.
    case ask
    /// Granted while in use.
    case whenInUse = "when-in-use"
    /// Granted always.
    case always
    /// Denied; the user may change it (`locctl apps grant`).
    case denied
    /// Forbidden; nobody but the administrator can change it.
    case restricted
  }

  /// Which apps: one id, or nil for `*` (every app without a rule of its own).
  public var app: AppID? = nil
  /// Whether `ID=` was given.
  public var hasID = false
  /// The users it applies to, as written (names or uids; the shell resolves them); empty: all.
  public var users: [String] = []
  /// The answer.
  public var preset = Preset.ask
  /// The most accuracy the app may get, whoever grants it.
  public var maxAccuracy = AccuracyAuthorization.full

  /// A rule for every app, asking.
  public init() {}

  /// The keys of a policy file.
  public static let keys: [ConfigKey<AppRule>] = [
    ConfigKey(
      section: "App", name: "ID", placeholder: "APP", allowed: "an app id or *", isList: false,
      read: { rule, text in
        if text == "*" {
          rule.app = nil
        } else {
          guard let id = AppID(text) else {
            return "ID= must be an app id or *, not '\(text.prefix(64))': \(AppID.rule)"
          }
          rule.app = id
        }
        rule.hasID = true
        return nil
      },
      show: { [$0.app?.rawValue ?? "*"] }, clear: { _ in }),
    ConfigKey(
      section: "App", name: "User", placeholder: "USER", allowed: nil, isList: true,
      read: { rule, text in
        guard !text.isEmpty else {
          rule.users = []
          return nil
        }
        guard DaemonConfig.isName(text) else {
          return "User= must be a user name or uid, not '\(text.prefix(64))'"
        }
        rule.users.append(text)
        return nil
      },
      show: { $0.users.isEmpty ? [""] : $0.users }, clear: { $0.users = [] }),
    .choice("App", "Authorization", "ANSWER", \.preset, Preset.allCases.map { ($0.rawValue, $0) }),
    .choice("App", "Accuracy", "ACCURACY", \.maxAccuracy, [("full", .full), ("reduced", .reduced)]),
  ]

  /// The rule in a policy file's text, or every problem (`file:line: message`).
  public static func parse(fileText: String, fileName: String) -> (AppRule?, [ConfigDiagnostic]) {
    var rule = AppRule()
    var problems = rule.apply(fileText: fileText, fileName: fileName)
    if problems.isEmpty, !rule.hasID {
      problems.append(
        ConfigDiagnostic(file: fileName, line: 1, message: "[App] ID= is missing (an app id, or *)"))
    }
    return problems.isEmpty ? (rule, []) : (nil, problems)
  }
}

/// The policy in effect: the rules of every policy file, with their users resolved to uids
/// by the shell. For an app of a user, the most specific rule answers: the app's own rule for
/// that user, then the app's rule for everyone, then `*` for that user, then `*`.
public struct AppPolicy: Sendable, Hashable {
  /// A rule with the uids it applies to (nil: everyone).
  public struct Entry: Sendable, Hashable {
    /// The rule.
    public var rule: AppRule
    /// The users' uids; nil when the rule names no users.
    public var uids: Set<UInt32>?
    /// The file it came from.
    public var file: String
    /// An entry.
    public init(rule: AppRule, uids: Set<UInt32>?, file: String) {
      self.rule = rule
      self.uids = uids
      self.file = file
    }
  }

  /// The entries, in file-name order (a later file of the same specificity does not win).
  public var entries: [Entry]

  /// A policy.
  public init(_ entries: [Entry] = []) { self.entries = entries }

  /// The rule for `key`, if any applies.
  public func rule(for key: AppKey) -> Entry? {
    func matches(_ e: Entry, app: AppID?, forUser: Bool) -> Bool {
      e.rule.app == app && (forUser ? e.uids?.contains(key.uid) == true : e.uids == nil)
    }
    for (app, forUser) in [(key.app, true), (key.app, false), (nil, true), (nil, false)] as [(AppID?, Bool)] {
      if let e = entries.first(where: { matches($0, app: app, forUser: forUser) }) { return e }
    }
    return nil
  }
}
