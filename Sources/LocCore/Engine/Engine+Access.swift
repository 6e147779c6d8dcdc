/// An open session's access changes (after a reload; the apps' authorizations reuse it):
/// the sessions machine unsubscribes what the session may no longer receive, waiting
/// `locate` requests it may no longer make are refused, and the session is told.
extension Engine {
  mutating func accessChanged(
    _ id: SessionID, to level: AccessLevel, reason: AccessChangeReason, at now: Instant,
    into effects: inout [Effect]
  ) {
    guard let (change, tell) = sessions.changeAccess(id, to: level, reason: reason) else { return }
    let uid = sessions.peer(id).map { " (uid \($0.uid))" } ?? ""
    let lost =
      change.unsubscribed.isEmpty
      ? "" : "; unsubscribed from \(change.unsubscribed.sorted().map(\.rawValue).joined(separator: ", "))"
    effects.append(
      .log(.notice, "\(id)\(uid): access \(change.from) -> \(change.to) (\(reason.rawValue))\(lost)"))
    if tell { effects.append(.push([id], .accessChanged(change), at: now)) }
    let needed = SessionMachine.access(needed: .locate(timeout: nil, accuracy: nil))
    if let session = sessions.session(id), !session.isApp, SessionMachine.refusal(needed, session) != nil {
      let (requests, transitions) = acquisition.withdraw(id, at: now)
      let error = RequestError(
        .permissionDenied,
        "access changed while the request waited; reading locd's state needs root or the socket group")
      for ref in requests { effects.append(.reply(ref.session, ref.id, .failure(error))) }
      announce(transitions, into: &effects)
    }
  }
}
