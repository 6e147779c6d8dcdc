import LocCore

/// The face in `status` (`GeoClueReport`): where it stands, its clients, agents and counters.
extension GeoClueService {
  /// The report as of now.
  public var report: GeoClueReport {
    GeoClueReport(
      state: state.reportState, reason: state.reason, clients: face.clientCounts.all,
      activeClients: face.clientCounts.active, agents: face.agentUIDs,
      counters: counters.list)
  }
}

extension GeoClueService.State {
  /// Why the face does not serve, in words (nil while it starts or serves).
  public var reason: String? {
    switch self {
    case .off: return "stopped"
    case .starting, .serving: return nil
    case .nameTaken:
      return "another program owns it (is geoclue running? only one of them can serve GeoClue2)"
    case .nameRefused(let problem):
      return "the bus refused it (\(problem)); is the D-Bus policy file installed (docs/GEOCLUE.md)?"
    case .disconnected(let why): return why
    }
  }

  /// The state as `status` names it.
  var reportState: GeoClueReport.State {
    switch self {
    case .off: return .off
    case .starting: return .starting
    case .serving: return .serving
    case .nameTaken: return .nameTaken
    case .nameRefused: return .nameRefused
    case .disconnected: return .noBus
    }
  }
}

extension GeoClueFace.Counters {
  /// The counters by name, in the order docs/PROTOCOL.md lists them.
  public var list: [Counter] {
    [
      Counter("clientsCreated", clientsCreated), Counter("clientsRefused", clientsRefused),
      Counter("clientsRefusedPerUser", clientsRefusedPerUser),
      Counter("clientsRefusedReserved", clientsRefusedReserved),
      Counter("strangersDenied", strangersDenied), Counter("invalidDesktopIDs", invalidDesktopIDs),
      Counter("startsDenied", startsDenied), Counter("identitiesRefused", identitiesRefused),
      Counter("decidedBefore", decidedBefore), Counter("starts", starts), Counter("agentsAdded", agentsAdded),
      Counter("agentsRefused", agentsRefused), Counter("authorizeCalls", authorizeCalls),
      Counter("agentCallsRefused", agentCallsRefused), Counter("agentTimeouts", agentTimeouts),
      Counter("lateAgentAnswers", lateAgentAnswers),
      Counter("locationsSignalled", locationsSignalled), Counter("fullAccuracyAsked", fullAccuracyAsked),
    ]
  }
}
