/// Who a session is, once its hello's claim is weighed against what the kernel says
/// (`PeerUnit`): an app with its key and how its id is known, or a plain session (locctl,
/// scripts, the admin) that keeps the access-level rules.
public struct AppIdentity: Sendable, Hashable {
  /// How the app id is known.
  public enum Verification: String, Sendable, Hashable {
    /// From the peer's Flatpak scope.
    case flatpak
    /// From the peer's systemd unit, named by the convention for apps.
    case systemd
    /// Only the app's word.
    case claimed
  }

  /// The decisions' key.
  public var key: AppKey
  /// How the id is known.
  public var verification: Verification
  /// The peer's unit, if it is in one (shown whether or not it names the app).
  public var unit: String?

  /// An identity.
  public init(key: AppKey, verification: Verification, unit: String?) {
    self.key = key
    self.verification = verification
    self.unit = unit
  }

  /// Whether the kernel vouches for the id.
  public var isVerified: Bool { verification != .claimed }

  /// Why a hello's claim is refused.
  public enum Refusal: Error, Sendable, Hashable {
    /// The claim is not an app id.
    case invalid(String)
    /// The claim contradicts the id the kernel vouches for.
    case mismatch(claimed: String, verified: AppID, unit: String)

    /// The error answered to the hello.
    public var error: RequestError {
      switch self {
      case .invalid(let text):
        return RequestError(.invalidParams, "\"app\" \(quoted(text)) is not an app id: \(AppID.rule)")
      case .mismatch(let claimed, let verified, let unit):
        return RequestError(
          .identityMismatch,
          "this process runs in \(unit), which makes it \(verified); it may not say it is \(quoted(claimed))")
      }
    }

    func quoted(_ s: String) -> String { s.count <= 64 ? "'\(s)'" : "'\(s.prefix(64))...'" }
  }

  /// The identity of a peer of `uid` in `unit` that claims `claim` in its hello: nil for a
  /// plain session, else the app. The kernel's word wins: a claim that contradicts a verified
  /// id is refused. A Flatpak app is an app even if it claims nothing (a sandbox cannot opt
  /// out of its identity); a process in a unit that only follows systemd's naming (a
  /// terminal's children inherit its scope) is a plain session unless it claims an id.
  public static func resolve(claim: String?, uid: UInt32, unit: PeerUnit) -> Result<AppIdentity?, Refusal> {
    var claimed: AppID? = nil
    if let claim {
      guard let id = AppID(claim) else { return .failure(.invalid(claim)) }
      claimed = id
    }
    switch unit {
    case .flatpak(let verified, let name), .app(let verified, let name):
      if let claimed, claimed != verified {
        return .failure(.mismatch(claimed: claimed.rawValue, verified: verified, unit: name))
      }
      let isFlatpak = if case .flatpak = unit { true } else { false }
      guard claimed != nil || isFlatpak else { return .success(nil) }
      let how: Verification = isFlatpak ? .flatpak : .systemd
      return .success(AppIdentity(key: AppKey(uid: uid, app: verified), verification: how, unit: name))
    case .unit, .none, .unknown:
      guard let claimed else { return .success(nil) }
      return .success(
        AppIdentity(key: AppKey(uid: uid, app: claimed), verification: .claimed, unit: unit.unitName))
    }
  }
}
