import Testing

@testable import LocCore

/// Whose time may go to chrony (decision 0060): who writes each kind of source, the trust
/// rule over writers, the agreement rule against a synchronised clock, and what the chrony
/// socket must be. The expectations are the decision's reasoning, case by case.
@Suite struct ClockSampleRuleTests {
  static let locd: UInt32 = 990

  /// Each kind of source, and how its writer is known. A device file names its owner; a
  /// modem comes through ModemManager (root's, owner of its bus name); a server on loopback
  /// is judged by who owns its socket, since any user may take a free port; another host is
  /// another host; a listener's peers one by one; a datagram carries no sender; a replay's
  /// times were recorded.
  @Test(arguments: [
    ("serial:/dev/ttyUSB0?baud=auto", FixWriter.Basis.deviceOwner),
    ("modem:", .fixed(.device)),
    ("gpsd://127.0.0.1:2947", .serverOwner),
    ("gpsd://localhost:2947?nmea=1", .serverOwner),
    ("gpsd://[::1]:2947", .serverOwner),
    ("gpsd://gps.example.net:2947", .fixed(.remoteHost)),
    ("nmea+tcp://127.0.0.1:10110", .serverOwner),
    ("nmea+tcp://192.0.2.7:10110", .fixed(.remoteHost)),
    ("nmea+tcp-listen://:10110", .eachPeer),
    ("nmea+tcp-listen://0.0.0.0:10110", .eachPeer),
    ("nmea+unix-listen:///run/locd/nmea.sock", .eachPeer),
    ("nmea+udp://:10110", .fixed(.datagram)),
    ("nmea+udp://0.0.0.0:10110", .fixed(.datagram)),
    ("replay:/var/log/drive.nmea?speed=1", .fixed(.recording)),
  ])
  func everyKindSaysHowItsWriterIsKnown(uri: String, basis: FixWriter.Basis) throws {
    #expect(try SourceURI(parsing: uri).writerBasis == basis)
  }

  /// Where the kind decides, nothing a source reports changes it; where the writer must be
  /// learned and was not, it is an unknown user.
  @Test func aKindsOwnWriterBeatsWhatWasLearnedAndNothingLearnedIsUnknown() throws {
    let replay = try SourceURI(parsing: "replay:/x.nmea")
    #expect(replay.writer(learned: .privileged) == .recording)
    let udp = try SourceURI(parsing: "nmea+udp://:10110")
    #expect(udp.writer(learned: .device) == .datagram)
    let listener = try SourceURI(parsing: "nmea+tcp-listen://:10110")
    #expect(listener.writer(learned: nil) == .unknownUser)
    #expect(listener.writer(learned: .localUser(uid: 65534)) == .localUser(uid: 65534))
    let gpsd = try SourceURI(parsing: "gpsd://127.0.0.1:2947")
    #expect(gpsd.writer(learned: nil) == .unknownUser)
    #expect(gpsd.writer(learned: .privileged) == .privileged)
  }

  /// A listener's peer: root and locd are privileged; with a list, an admitted peer is one
  /// root named; without one, any local user; an unknown uid is unknown.
  @Test func aPeerIsWhatItsStandingAndTheListsMakeIt() {
    #expect(FixWriter.peer(uid: 0, standing: .privileged, restricted: false) == .privileged)
    #expect(FixWriter.peer(uid: 1000, standing: .admitted, restricted: true) == .namedUser(uid: 1000))
    #expect(FixWriter.peer(uid: 65534, standing: .admitted, restricted: false) == .localUser(uid: 65534))
    #expect(FixWriter.peer(uid: nil, standing: .unknown, restricted: false) == .unknownUser)
    #expect(FixWriter.peer(uid: 5, standing: .notAllowed, restricted: true) == .unknownUser)
  }

  /// A socket or a device file: root's and locd's are privileged (a device), anyone else's
  /// that user's (a pty another user opened), an unknown owner unknown.
  @Test func anOwnerMakesTheWriter() {
    #expect(FixWriter.owner(0, daemonUID: Self.locd) == .privileged)
    #expect(FixWriter.owner(Self.locd, daemonUID: Self.locd) == .privileged)
    #expect(FixWriter.owner(1000, daemonUID: Self.locd) == .localUser(uid: 1000))
    #expect(FixWriter.owner(nil, daemonUID: Self.locd) == .unknownUser)
    #expect(FixWriter.device(owner: 0, daemonUID: Self.locd) == .device)
    #expect(FixWriter.device(owner: 1000, daemonUID: Self.locd) == .localUser(uid: 1000))
    #expect(FixWriter.device(owner: nil, daemonUID: Self.locd) == .unknownUser)
  }

  /// Rule 1: only writers no ordinary user can be set the clock; an untrusted sample is
  /// withheld whatever its time and whatever the clock (even one that agrees: it would
  /// still be the attacker's vote).
  @Test func onlyRootsWritersAndNamedUsersAreTrusted() {
    let trusted: [FixWriter] = [.device, .privileged, .namedUser(uid: 1000)]
    let untrusted: [FixWriter] = [.localUser(uid: 65534), .unknownUser, .datagram, .remoteHost, .recording]
    for w in trusted { #expect(ClockSampleRule.trusts(w), "\(w)") }
    for w in untrusted {
      #expect(!ClockSampleRule.trusts(w), "\(w)")
      for clock in SystemClockState.allCases {
        let verdict = ClockSampleRule.judge(
          writer: w, seconds: 0, clock: clock, maxDisagreement: .seconds(60))
        #expect(verdict == .untrusted(w))
      }
    }
  }

  /// Rule 2: only against a synchronised clock, only past the bound (which is allowed: a
  /// true receiver at 60 s is within it), either side; `off` and an unknown clock never
  /// withhold.
  @Test func aTrustedSampleFarFromASynchronisedClockIsWithheld() {
    func judge(_ seconds: Double, _ clock: SystemClockState, _ bound: Duration? = .seconds(60))
      -> ClockSampleRule.Verdict
    {
      ClockSampleRule.judge(writer: .device, seconds: seconds, clock: clock, maxDisagreement: bound)
    }
    #expect(judge(3600, .synchronised) == .disagrees(seconds: 3600))
    #expect(judge(-86_400, .synchronised) == .disagrees(seconds: -86_400))
    #expect(judge(60, .synchronised) == .send)
    #expect(judge(-59.9, .synchronised) == .send)
    #expect(judge(60.001, .synchronised) == .disagrees(seconds: 60.001))
    #expect(judge(3600, .unsynchronised) == .send, "a clock nothing vouches for is the one to correct")
    #expect(judge(3600, .unknown) == .send)
    #expect(judge(3600, .synchronised, nil) == .send, "MaxDisagreement=off")
    #expect(judge(2, .synchronised, .milliseconds(1500)) == .disagrees(seconds: 2))
  }

  /// As systemd's timedated judges NTPSynchronized: under the kernel's 16 s limit
  /// (NTP_PHASE_LIMIT, where maxerror stops growing) is synchronised; at it, not; a failed
  /// read is unknown.
  @Test func theKernelsErrorBoundSaysWhetherTheClockIsSynchronised() {
    #expect(SystemClockState(maximumError: .microseconds(16_000_000)) == .unsynchronised)
    #expect(SystemClockState(maximumError: .microseconds(15_999_999)) == .synchronised)
    #expect(SystemClockState(maximumError: .microseconds(1500)) == .synchronised)
    #expect(SystemClockState(maximumError: nil) == .unknown)
    for state in SystemClockState.allCases { #expect(SystemClockState(name: state.name) == state) }
  }

  /// The socket: a link or anything but a socket is refused; a socket of another owner is
  /// refused; one with a second name (a hard link) is refused; root's or chrony's, with
  /// one name, is taken.
  @Test func theChronySocketMustBeRootsOrChronysOwnSocket() {
    let owners: Set<UInt32> = [0, 102]
    let path = "/run/chrony/locd.sock"
    #expect(ChronySocketRule.check(.symbolicLink, path: path, owners: owners) == .symbolicLink(path: path))
    #expect(
      ChronySocketRule.check(.other("a regular file"), path: path, owners: owners)
        == .notSocket(what: "a regular file"))
    #expect(
      ChronySocketRule.check(.socket(owner: 65534, links: 1), path: path, owners: owners)
        == .owner(uid: 65534))
    #expect(
      ChronySocketRule.check(.socket(owner: 0, links: 2), path: path, owners: owners) == .hardLinked(names: 2)
    )
    #expect(ChronySocketRule.check(.socket(owner: 0, links: 1), path: path, owners: owners) == nil)
    #expect(ChronySocketRule.check(.socket(owner: 102, links: 1), path: path, owners: owners) == nil)
    let names = [
      ChronySocketRule.Problem.symbolicLink(path: path), .notSocket(what: "x"), .owner(uid: 1),
      .hardLinked(names: 2),
    ].map(\.name)
    #expect(names == ["symbolic-link", "not-a-socket", "wrong-owner", "hard-linked"])
  }

  /// `[Time] MaxDisagreement=`: a span from 1 s to a day, or `off`; 1 min by default.
  @Test func maxDisagreementTakesASpanOrOff() {
    var c = DaemonConfig()
    #expect(c.maxDisagreement == .seconds(60))
    #expect(c.apply(fileText: "[Time]\nMaxDisagreement=off\n", fileName: "f").isEmpty)
    #expect(c.maxDisagreement == nil)
    #expect(c.effectiveSettings.contains("\nMaxDisagreement=off\n"))
    #expect(c.apply(fileText: "[Time]\nMaxDisagreement=5min\n", fileName: "f").isEmpty)
    #expect(c.maxDisagreement == .seconds(300))
    let zero = c.apply(fileText: "[Time]\nMaxDisagreement=0\n", fileName: "f")
    #expect(zero.first?.message.contains("out of range") == true, "\(zero)")
    #expect(c.maxDisagreement == .seconds(300), "a refused value changes nothing")
  }
}
