import LocCore
import Testing

/// `AllowUsers=`/`AllowGroups=` and the sharing of a listener's peer slots (issue 15: an
/// unprivileged peer must not lock the real receiver out; only allowed users feed a listener
/// when a list is set).
@Suite struct PeerAdmissionTests {
  typealias Occupant = PeerSlotRule.Occupant
  static let locd: UInt32 = 990
  static let alice: UInt32 = 1000
  static let nobody: UInt32 = 65534
  static let gps: UInt32 = 120  // a group

  @Test func withoutListsAnyKnownOrUnknownPeerIsAdmittedAndRootAndLocdArePrivileged() {
    let open = PeerAdmission(daemonUID: Self.locd)
    #expect(!open.restricted)
    #expect(open.standing(uid: 0) { [] } == .privileged)
    #expect(open.standing(uid: Self.locd) { [] } == .privileged)
    #expect(open.standing(uid: Self.nobody) { [] } == .admitted)
    #expect(open.standing(uid: nil) { [] } == .unknown)
    #expect(open.admits(.unknown), "without a list an unknown uid is any local user")
  }

  @Test func withListsOnlyMembersRootAndLocdAreAdmittedAndUnknownUIDsAreNot() {
    let restricted = PeerAdmission(daemonUID: Self.locd, allowedUIDs: [Self.alice], allowedGIDs: [Self.gps])
    #expect(restricted.restricted)
    #expect(restricted.standing(uid: Self.alice) { [] } == .admitted)
    #expect(restricted.standing(uid: Self.nobody) { [Self.nobody] } == .notAllowed)
    #expect(restricted.standing(uid: Self.nobody) { [100, Self.gps] } == .admitted, "by a group")
    #expect(restricted.standing(uid: 0) { [] } == .privileged)
    #expect(restricted.standing(uid: Self.locd) { [] } == .privileged)
    #expect(!restricted.admits(.notAllowed))
    #expect(!restricted.admits(.unknown))
    #expect(restricted.admits(.admitted) && restricted.admits(.privileged))
    // A list whose names resolve to nobody still restricts.
    let empty = PeerAdmission(daemonUID: Self.locd, restricted: true)
    #expect(empty.standing(uid: Self.alice) { [Self.gps] } == .notAllowed)
  }

  @Test func groupsAreAskedOnlyWhenAGroupListDecides() {
    var asked = 0
    let users = PeerAdmission(daemonUID: Self.locd, allowedUIDs: [Self.alice])
    _ = users.standing(uid: Self.nobody) {
      asked += 1
      return []
    }
    _ = users.standing(uid: Self.alice) {
      asked += 1
      return []
    }
    #expect(asked == 0, "groups come from NSS for a TCP peer: not looked up needlessly")
  }

  @Test func aUserHoldsAtMostTwoSlotsRootAndLocdMore() {
    let two = [
      Occupant(uid: Self.nobody, privileged: false, connectedAt: 1, lastActiveAt: 100),
      Occupant(uid: Self.nobody, privileged: false, connectedAt: 2, lastActiveAt: 100),
    ]
    #expect(
      PeerSlotRule.decide(uid: Self.nobody, privileged: false, occupants: two, now: 200)
        == .refuse(.perUserLimit))
    #expect(PeerSlotRule.decide(uid: nil, privileged: false, occupants: two, now: 200) == .admit)
    let unknownTwo = two.map {
      Occupant(uid: nil, privileged: false, connectedAt: $0.connectedAt, lastActiveAt: 100)
    }
    #expect(
      PeerSlotRule.decide(uid: nil, privileged: false, occupants: unknownTwo, now: 200)
        == .refuse(.perUserLimit),
      "peers of unknown uid count as one user")
    let root = (0..<3).map { Occupant(uid: 0, privileged: true, connectedAt: UInt64($0), lastActiveAt: 100) }
    #expect(PeerSlotRule.decide(uid: 0, privileged: true, occupants: root, now: 200) == .admit)
  }

  @Test func theReceiverKeepsItsSlotWhileTwoUsersFightOverTheRest() {
    // The receiver (alice, sending) holds one slot; nobody holds two; a third user holds one.
    let now: UInt64 = 10_000_000
    var peers = [
      Occupant(uid: Self.alice, privileged: false, connectedAt: 1, lastActiveAt: now - 100),
      Occupant(uid: Self.nobody, privileged: false, connectedAt: 2, lastActiveAt: now - 100),
      Occupant(uid: Self.nobody, privileged: false, connectedAt: 3, lastActiveAt: now - 100),
      Occupant(uid: 2000, privileged: false, connectedAt: 4, lastActiveAt: now - 100),
    ]
    // A fourth user with no slot takes nobody's newest (nobody holds two, it none).
    #expect(
      PeerSlotRule.decide(uid: 3000, privileged: false, occupants: peers, now: now)
        == .evict(index: 2, .fairShare))
    peers[2] = Occupant(uid: 3000, privileged: false, connectedAt: 5, lastActiveAt: now - 100)
    // Now every user holds one: nobody coming back (one slot) cannot take anyone's.
    #expect(
      PeerSlotRule.decide(uid: Self.nobody, privileged: false, occupants: peers, now: now) == .refuse(.full))
    #expect(PeerSlotRule.decide(uid: 4000, privileged: false, occupants: peers, now: now) == .refuse(.full))
    // Root always gets in, at the newest unprivileged peer's expense: never the receiver's
    // (the oldest) while a newer one exists.
    #expect(
      PeerSlotRule.decide(uid: 0, privileged: true, occupants: peers, now: now)
        == .evict(index: 2, .privilegedNewcomer))
  }

  @Test func quietPeersGiveWayFirst() {
    let now: UInt64 = 10_000_000
    let peers = [
      Occupant(uid: Self.alice, privileged: false, connectedAt: 1, lastActiveAt: now - 100),
      Occupant(uid: Self.nobody, privileged: false, connectedAt: now - 3_000_000),  // mute past its grace
      Occupant(uid: Self.nobody, privileged: false, connectedAt: now - 1_000_000),  // mute, in its grace
      Occupant(uid: 2000, privileged: false, connectedAt: 4, lastActiveAt: now - 6_000_000),  // silent 6 s
    ]
    #expect(
      PeerSlotRule.decide(uid: 3000, privileged: false, occupants: peers, now: now)
        == .evict(index: 1, .quiet))
    var noMute = peers
    noMute[1].lastActiveAt = now
    noMute[2].lastActiveAt = now
    #expect(
      PeerSlotRule.decide(uid: 3000, privileged: false, occupants: noMute, now: now)
        == .evict(index: 3, .quiet))
  }

  @Test func trustOfListenersFollowsTheLists() throws {
    let uris = try [
      "nmea+tcp-listen://:1", "nmea+unix-listen:///run/locd/nmea.sock", "nmea+tcp-listen://0.0.0.0:1",
    ]
    .map { try SourceURI(parsing: $0) }
    #expect(uris.map { $0.trust(peersRestricted: false) } == [.localUsers, .system, .network])
    #expect(uris.map { $0.trust(peersRestricted: true) } == [.allowedUsers, .allowedUsers, .network])
    #expect(uris.map(\.trust) == uris.map { $0.trust(peersRestricted: false) })
  }

  @Test func unixListenURIs() throws {
    let uri = try SourceURI(parsing: "nmea+unix-listen:///run/locd/nmea.sock")
    #expect(uri == .nmeaUnixListen(path: "/run/locd/nmea.sock"))
    #expect(uri.description == "nmea+unix-listen:///run/locd/nmea.sock")
    #expect(try SourceURI(parsing: uri.description) == uri)
    let long = "/" + String(repeating: "a", count: 107)
    for bad in [
      "nmea+unix-listen://run/x.sock", "nmea+unix-listen:relative", "nmea+unix-listen:///run/",
      "nmea+unix-listen:///a/../b",
      "nmea+unix-listen://\(long)", "nmea+unix-listen:///x.sock?mode=0666",
    ] {
      #expect(throws: SourceURI.ParseError.self, "\(bad)") { try SourceURI(parsing: bad) }
    }
  }

  @Test func allowListsInLocdConf() {
    var c = DaemonConfig()
    var problems = c.apply(
      fileText: "[Sources]\nAllowUsers=alice 1000\nAllowUsers=gpsd alice\nAllowGroups=dialout\n",
      fileName: "a.conf")
    #expect(problems.isEmpty, "\(problems)")
    #expect(c.allowUsers == ["alice", "1000", "gpsd"])
    #expect(c.allowGroups == ["dialout"])
    #expect(c.effectiveSettings.contains("\nAllowUsers=alice\nAllowUsers=1000\nAllowUsers=gpsd\n"))
    var again = DaemonConfig()
    #expect(again.apply(fileText: c.effectiveSettings, fileName: "printed").isEmpty)
    #expect(again == c)
    problems = c.apply(fileText: "[Sources]\nAllowUsers=\nAllowGroups=a:b\n", fileName: "b.conf")
    #expect(c.allowUsers.isEmpty, "an empty value clears the list")
    #expect(
      problems.map(\.description).contains { $0.contains("AllowGroups= must list") && $0.contains("'a:b'") },
      "\(problems)")
  }
}
