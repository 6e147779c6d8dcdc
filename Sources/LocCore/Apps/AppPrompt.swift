/// Who answers prompts for a user. Today a session of `locctl agent` on the socket; another
/// face's agents (GeoClue's, asked with AuthorizeApp on the bus) become another case, with
/// the effect that asks them: the machine deals in `AgentID`s and nothing else changes.
public enum AgentID: Sendable, Hashable {
  /// A session that registered with `agent-register`.
  case session(SessionID)
}

/// A prompt's number, unique for the daemon's lifetime.
public struct PromptID: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The number.
  public var raw: UInt64
  /// A prompt id.
  public init(_ raw: UInt64) { self.raw = raw }
  public static func < (a: PromptID, b: PromptID) -> Bool { a.raw < b.raw }
  public var description: String { "prompt \(raw)" }
}

/// A question for the person, as the agent shows it.
public struct AppPrompt: Sendable, Hashable {
  /// What is asked.
  public enum Kind: String, Sendable, Hashable {
    /// May the app use the location (Allow Once / Allow While Using / Don't Allow,
    /// Precise on or off)?
    case authorization
    /// May an app allowed while in use have it always (Change to Always Allow / Keep Only
    /// While Using)?
    case upgrade
    /// May an app granted reduced accuracy have full accuracy until it is no longer in use
    /// (Allow Once / Don't Allow; Core Location's temporary full accuracy)?
    case temporaryFullAccuracy = "temporary-full-accuracy"
  }

  /// Its number.
  public var id: PromptID
  /// What is asked.
  public var kind: Kind
  /// The app and its user.
  public var identity: AppIdentity
  /// What the app asked for (for `authorization`: `always` means the person is asked for
  /// while-in-use and the app gets provisional always).
  public var requested: AuthorizationLevel
  /// The app's purpose, as it gave it.
  public var purpose: String?
  /// The accuracy the policy allows at most (an agent cannot grant more).
  public var maxAccuracy: AccuracyAuthorization
  /// When it was put to the agent (nil while waiting for one).
  public var askedAt: Instant?
  /// When it is given up if not answered.
  public var deadline: Instant?
}

/// An agent's answer to a prompt.
public enum AgentAnswer: String, Sendable, Hashable, CaseIterable {
  /// Allow Once: when-in-use until the app is no longer in use (for a
  /// `temporary-full-accuracy` prompt: full accuracy until then).
  case allowOnce = "allow-once"
  /// Allow While Using the App.
  case allowWhileUsing = "allow-while-using"
  /// Don't Allow.
  case deny
  /// Change to Always Allow (upgrade prompts).
  case always
  /// Keep Only While Using (upgrade prompts).
  case keepWhileUsing = "keep-while-using"

  /// Whether it answers prompts of `kind`.
  public func answers(_ kind: AppPrompt.Kind) -> Bool {
    switch self {
    case .allowOnce, .deny: return kind == .authorization || kind == .temporaryFullAccuracy
    case .allowWhileUsing: return kind == .authorization
    case .always, .keepWhileUsing: return kind == .upgrade
    }
  }
}

/// Where an app's request for authorization stands, as the app is told.
public enum PromptState: String, Sendable, Hashable {
  /// Nothing asked, or the question was answered.
  case none
  /// The agent is being asked (or will be, after the prompts before it).
  case asking
  /// No agent is registered for the user; the request waits for one.
  case noAgent = "no-agent"
  /// The agent did not answer in time (or went away); asked again no sooner than
  /// `PromptInterval=` after.
  case noAnswer = "no-answer"
}
