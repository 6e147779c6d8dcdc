import LocCore

/// What `GpsdFace` works with: its environment, who a client is, its clients, and the
/// actions it asks of its adapter.
extension GpsdFace {
  /// What the face is given about the rest of the daemon.
  struct Environment {
    /// The release `VERSION` names.
    var release: String
    /// locd's sources, as `DEVICES` lists them.
    var devices: () -> [GpsdDevice]
    /// Each source's latest satellites (the engine's sky board).
    var skies: () -> [SourceSky]
    /// Whether the source of this URI sends its own sentences (`Daemon.relay`): then they
    /// are what `nmea` and `raw` watchers get, and its fixes are not rebuilt into sentences.
    var sendsSentences: (String) -> Bool
  }

  /// Who a client is to the engine.
  enum Standing: Equatable {
    /// Root, locd's uid, the read and admin groups: a plain session that subscribes.
    case plain
    /// Anyone else: an app, named by the kernel or by the process's name.
    case app(AppID)
  }

  /// What the face asks of its adapter.
  enum Action: Equatable {
    /// Write a line (a JSON report with its newline, or an NMEA sentence with CR LF).
    case send(SessionID, String)
    /// Write the same line to each of these clients, in this order (a cycle's TPV to every
    /// watcher: its bytes are made once, not once a client).
    case sendAll([SessionID], String)
    /// Open the client's engine session.
    case open(SessionID, SessionHello)
    /// A request of the client's session.
    case request(SessionID, RequestID, Request)
    /// Close the client's engine session (it left).
    case close(SessionID)
  }

  /// Request ids the face uses: the engine's replies come back with them.
  enum Requests {
    /// `request-authorization`, whose failure the client is told.
    static let authorize = RequestID.number(1)
    /// Every other request.
    static let other = RequestID.number(2)
  }

  /// One client.
  struct Client {
    var standing: Standing
    var watch = GpsdWatch()
    /// The app's accuracy as its last authorization report said (plain: full).
    var accuracy: AccuracyAuthorization?
    /// The last TPV and SKY it was sent (`?POLL`).
    var lastTPV: JSONObject? = nil
    var lastSky: JSONObject? = nil
    /// The time of the sky it was last sent, per source.
    var skySent: [String: Instant] = [:]
    /// The last refusal it was told (said once until it changes).
    var told: String? = nil

    /// Whether it is sent the receiver's sentences: it watches them at full accuracy.
    var readsSentences: Bool { watch.wantsSentences && accuracy == .full }
  }
}

/// What the face counts (status `gpsd`).
struct GpsdFaceCounters: Equatable, Sendable {
  /// Commands read.
  var commands = 0
  /// Commands refused with an ERROR (malformed, unknown, too long).
  var badCommands = 0
  /// Watches started or stopped.
  var watchChanges = 0
  /// ERRORs that told a client why it gets no position.
  var refusalsTold = 0
  /// Of them, those that told a client its grant was taken back (its reports stop).
  var revocationsTold = 0
  /// TPV reports sent.
  var tpvReports = 0
  /// SKY reports sent.
  var skyReports = 0
  /// NMEA sentences sent, rebuilt from fixes.
  var sentences = 0
  /// The receiver's own sentences passed on.
  var relayedSentences = 0
}
