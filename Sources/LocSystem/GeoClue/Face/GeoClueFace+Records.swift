import LocCore

/// What the face keeps about its clients, agents and calls to agents.
extension GeoClueFace {
  /// One client object: its properties and where its Start stands.
  struct Client {
    /// Its number (its path's last part).
    let number: ClientNumber
    /// The owning connection's unique name.
    let owner: String
    /// Who that connection is.
    let peer: Peer
    /// DesktopId as the client set it ("" until then).
    var desktopID = ""
    /// RequestedAccuracyLevel as set (any `u`; made valid at Start).
    var requestedLevel = GeoClueAccuracyLevel.clientDefault.rawValue
    /// DistanceThreshold and TimeThreshold.
    var thresholds = GeoClueThresholds()
    /// Active: started and delivering.
    var active = false
    /// Its Start, from the call to the session.
    var start = Start()
    /// What it is served and was signalled.
    var served = Served()

    /// Its object path.
    var path: String { GeoClueFace.path(of: number) }
  }

  /// Where a client's Start stands.
  struct Start {
    /// The Start call being authorized, answered when that is done.
    var pending: CallID?
    /// Waiting for an agent to register before it is answered without one.
    var waitingForAgent = false
    /// The level the Start allowed before the agent's MaxAccuracyLevel: the requested level
    /// made valid, capped by the agent's AuthorizeApp answer when it was asked.
    var allowedLevel: GeoClueAccuracyLevel?
    /// The app it is, found at Start.
    var identity: AppIdentity?
    /// Stopped because the agent's MaxAccuracyLevel went to 0; restarted when it rises again.
    var stoppedByAgent = false
  }

  /// What a client is served.
  struct Served {
    /// It has an engine session.
    var inSession = false
    /// The level it is served at now: `allowedLevel` capped by the agent's MaxAccuracyLevel.
    var grantedLevel: GeoClueAccuracyLevel?
    /// The next location is signalled whatever the thresholds (the accuracy changed).
    var mustSignal = false
    /// The values last signalled: the thresholds are measured from here.
    var lastSignalled: GeoClueLocationValues?
    /// The values of its current Location object (updated in place inside the thresholds).
    var shown: GeoClueLocationValues?
    /// The engine's values last given, before the compass: what a new heading applies to.
    var located: GeoClueLocationValues?
    /// The compass's latest heading, while the client is started.
    var compass: Double?
  }

  /// The agent of one user, registered with AddAgent.
  struct Agent {
    /// Its connection.
    let name: String
    /// The user it answers for.
    let uid: UInt32
    /// The desktop id it gave to AddAgent.
    let desktopID: String
    /// MaxAccuracyLevel as it last said.
    var maxLevel: UInt32
  }

  /// A call to an agent without an answer.
  struct AgentCall {
    /// What it was for.
    enum Purpose {
      /// AuthorizeApp for a client's Start.
      case authorize(ClientNumber, AppKey, desktopID: String, level: GeoClueAccuracyLevel)
      /// The MaxAccuracyLevel read of an AddAgent.
      case register(CallID, sender: String, uid: UInt32, desktopID: String)
    }
    /// The user whose agent it went to.
    let uid: UInt32
    /// What it was for.
    let purpose: Purpose
    /// The caller's wait ended before the answer came.
    var timedOut = false
  }

  /// The Manager's path.
  static let managerPath = "/org/freedesktop/GeoClue2/Manager"
  /// The prefix of client paths.
  static let clientPrefix = "/org/freedesktop/GeoClue2/Client/"
  /// Longest DesktopId (a desktop file id is a file name: NAME_MAX).
  static let maxDesktopID = 255

  /// The path of client `number`.
  public static func path(of number: ClientNumber) -> String { clientPrefix + String(number) }

  /// Whether `id` can name a desktop file: not empty, at most `maxDesktopID` bytes, no `/`,
  /// no control characters (the desktop entry specification's file ids are file names).
  public static func isDesktopID(_ id: String) -> Bool {
    !id.isEmpty && id.utf8.count <= maxDesktopID && !id.contains("/")
      && id.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F }
  }
}
