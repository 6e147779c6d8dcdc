import LocCore

/// Calls to agents (AuthorizeApp, the MaxAccuracyLevel read), each counted against the user
/// whose agent it goes to (`GeoClueAgentCalls`) for as long as dbus-daemon holds it: until the
/// agent answers, or leaves the bus and the bus answers for it. The caller waits
/// `Limits.agentTimeout` at most and then goes on without the answer, but the call stays
/// counted: the bus still holds it for locd's connection (its reply_timeout is "never" by
/// default), so a silent agent costs its own user's calls, never another user's.
extension GeoClueService {
  /// Why a call to the agent of `uid` may not go now, in words (nil: it may).
  func agentCallRefusal(uid: UInt32) -> String? {
    switch agentCalls.decide(uid: uid) {
    case .admit: return nil
    case .perUserLimit:
      return
        "the agent of UID \(uid) has not answered \(agentCalls.held(by: uid)) calls (MaxAgentCallsPerUser); locd asks it nothing more until it answers or leaves the bus"
    case .full:
      return
        "GeoClue agents have not answered \(agentCalls.taken) calls (MaxAgentCalls); locd asks no more until some are answered"
    }
  }

  /// Calls `member` of the agent `name` (of `uid`) with `arguments`. `answered` gets the reply
  /// (or the bus's error), with `late` true when `timedOut` ran first: that happens when no
  /// reply came within `Limits.agentTimeout`. Returns why the call did not go (a limit's
  /// refusal is counted), nil when it went.
  func callAgent(
    _ name: String, uid: UInt32, interface: String, member: String, arguments: [BusMessage.Value],
    answered: @escaping (_ reply: BusMessage, _ late: Bool) -> Void, timedOut: @escaping () -> Void
  ) -> AgentCallRefusal? {
    guard let bus else {
      return AgentCallRefusal(text: "locd is not connected to the system bus", isLimit: false)
    }
    if let refusal = agentCallRefusal(uid: uid) {
      counters.agentCallsRefused += 1
      return AgentCallRefusal(text: refusal, isLimit: true)
    }
    let call = GeoClueAgentCall()
    let generation = self.generation
    do {
      // No timeout of sd-bus's own: the slot is given back when the bus answers, which it
      // does when the agent replies or leaves (or at the bus's reply_timeout, if it has one).
      try bus.call(
        destination: name, path: GeoClueAgent.path, interface: interface, member: member,
        arguments: arguments,
        timeoutMicroseconds: BusConnection.untilAnswered
      ) { [weak self] reply in
        call.deadline?.cancel()
        call.deadline = nil
        guard let self, self.generation == generation else { return }
        self.agentCalls.release(uid: uid)
        answered(reply, call.timedOut)
      }
    } catch {
      return AgentCallRefusal(
        text: "cannot call \(member) of the agent of UID \(uid): \(error)", isLimit: false)
    }
    agentCalls.take(uid: uid)
    let deadline = try? loop.timer(clock: .monotonic, accuracyMicroseconds: 100_000) {
      [weak self, weak call] in
      guard let self, let call, self.generation == generation else { return }
      call.deadline = nil
      call.timedOut = true
      self.counters.agentTimeouts += 1
      timedOut()
    }
    deadline?.arm(
      atMicroseconds: loop.monotonicMicroseconds + GeoClueService.microseconds(limits.agentTimeout))
    call.deadline = deadline
    return nil
  }

  /// `d` in microseconds (a Duration of config: at most days).
  static func microseconds(_ d: Duration) -> UInt64 {
    UInt64(d.components.seconds) * 1_000_000 + UInt64(d.components.attoseconds / 1_000_000_000_000)
  }
}

/// Why a call to an agent did not go.
struct AgentCallRefusal {
  /// In words.
  var text: String
  /// A limit of `GeoClueAgentCalls` refused it (else the bus could not send it).
  var isLimit: Bool
}

/// One call to an agent on its way: its caller's deadline, and whether that passed.
final class GeoClueAgentCall {
  /// The timer of the caller's wait, until the answer or the deadline.
  var deadline: Timer?
  /// The deadline passed before the answer came.
  var timedOut = false
}
