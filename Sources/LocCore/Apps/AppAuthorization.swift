/// An app's authorization to use the location, as Core Location names it
/// (CLAuthorizationStatus). The wire words are the raw values.
public enum AuthorizationStatus: String, Sendable, Hashable, CaseIterable {
  /// Nobody decided yet; the app may ask.
  case notDetermined = "not-determined"
  /// A policy of the machine forbids it; the user cannot change that.
  case restricted
  /// The user said no.
  case denied
  /// Allowed while the app is in use.
  case whenInUse = "when-in-use"
  /// Allowed whether in use or not.
  case always
}

/// How precise the positions an app gets are (CLAccuracyAuthorization).
public enum AccuracyAuthorization: String, Sendable, Hashable, CaseIterable, Comparable {
  /// Reduced: snapped to a grid of cells a few kilometres wide (`ReducedGrid`).
  case reduced
  /// Full precision.
  case full

  public static func < (a: AccuracyAuthorization, b: AccuracyAuthorization) -> Bool {
    a == .reduced && b == .full
  }
}

/// What an app asks for (`request-authorization`'s `level`).
public enum AuthorizationLevel: String, Sendable, Hashable, CaseIterable {
  /// Only while in use.
  case whenInUse = "when-in-use"
  /// Also while not in use.
  case always
}

/// Whether the app says it is in the foreground (`set-activity`).
public enum AppActivity: String, Sendable, Hashable, CaseIterable {
  /// The person is using it.
  case foreground
  /// It runs without the person looking at it.
  case background
}

/// An app's authorization as the app and `locctl apps` see it: the status, the accuracy, and
/// the two flags that qualify a grant.
public struct AppAuthorization: Sendable, Hashable {
  /// The status.
  public var status: AuthorizationStatus
  /// The accuracy granted (meaningful with when-in-use and always).
  public var accuracy: AccuracyAuthorization
  /// Provisional always: the app sees `always`, locd treats it as when-in-use until the person
  /// upgrades it at the first event that needs always.
  public var provisional: Bool
  /// Allow Once: when-in-use until the app stops being in use; never stored.
  public var once: Bool
  /// Full accuracy for now: the app's decision is reduced and the person allowed full accuracy
  /// until the app is no longer in use (`request-temporary-full-accuracy`); never stored.
  public var temporaryFullAccuracy: Bool

  /// An authorization.
  public init(
    _ status: AuthorizationStatus, accuracy: AccuracyAuthorization = .full, provisional: Bool = false,
    once: Bool = false, temporaryFullAccuracy: Bool = false
  ) {
    self.status = status
    self.accuracy = accuracy
    self.provisional = provisional
    self.once = once
    self.temporaryFullAccuracy = temporaryFullAccuracy
  }

  /// Nothing decided.
  public static let notDetermined = AppAuthorization(.notDetermined)

  /// Whether events are allowed while the app is not in use (always, not provisional).
  public var allowsBackground: Bool { status == .always && !provisional }
  /// Whether events are allowed while in use.
  public var allowsInUse: Bool { status == .always || status == .whenInUse }
}

/// Where an app's request for temporary full accuracy stands in its current use (Core
/// Location's requestTemporaryFullAccuracyAuthorization): kept in memory only, and forgotten
/// when the app is no longer in use.
public enum TemporaryAccuracy: String, Sendable, Hashable {
  /// The person allowed full accuracy until the app is no longer in use.
  case granted
  /// The person said no: not asked again in this use.
  case refused
}
