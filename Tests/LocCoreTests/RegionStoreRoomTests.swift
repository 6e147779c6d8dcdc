import Testing

@testable import LocCore

/// Issue 28, finding 3, in the engine: a user's apps file is never written larger than
/// MaxStoreBytesPerUser=, so a region that would make it larger is refused when it is
/// registered (too-many-regions, naming the key), not accepted and then left unwritten.
@Suite struct RegionStoreRoomTests {
  typealias R = RegionEngineTests

  /// The bytes of user `uid`'s apps file for the engine's store now.
  static func fileBytes(_ h: EngineHarness, uid: UInt32) -> Int {
    let store = h.engine.withRegions(h.engine.appAuthorization.store())
    return AppStore(store.records.filter { $0.key.uid == uid }).encoded().count
  }

  @Test func aRegionThatWouldOverfillItsUsersFileIsRefusedAndOthersStillRegister() throws {
    var config = DaemonConfig()
    config.apps.maxStoreBytesPerUser = 32 * 1024
    var h = R.started(.grant(.always, .full), config: config)
    let other = SessionID(3)
    h.app(other, "org.example.Other", uid: 1001)
    h.send(R.admin, .changeApp(AppID("org.example.Other")!, uid: 1001, .grant(.always, .full)))
    // Ids of 128 bytes: each region takes about 250 bytes in the file.
    func id(_ n: Int) -> String { "r\(n)-" + String(repeating: "x", count: 124 - String(n).count) }
    var accepted = 0
    var refusal: RequestError? = nil
    for n in 0..<200 {
      switch h.send(R.app, .registerRegion(R.region(id(n)))) {
      case .success?: accepted += 1
      case .failure(let e)?:
        refusal = e
      case nil: Issue.record("no reply")
      }
      if refusal != nil { break }
    }
    let e = try #require(refusal, "200 regions of 250 bytes do not fit 32 KiB")
    #expect(e.code == .tooManyRegions && e.message.contains("MaxStoreBytesPerUser="), "\(e)")
    // What was taken fits, leaving room for one more app's record (4 KiB; the app's own
    // record is in the file already, within the 4 KiB kept for it).
    let bytes = Self.fileBytes(h, uid: 1000)
    #expect(bytes <= 32 * 1024 - AppStore.recordBytesBound, "\(bytes) bytes for \(accepted) regions")
    #expect(accepted >= 90, "refused only near the room: \(accepted) taken")
    // Unregistering gives the room back; another user is not affected.
    guard case .success? = h.send(R.app, .unregisterRegion(try RegionID(id(0)))) else {
      Issue.record("unregister failed")
      return
    }
    guard case .success? = h.send(R.app, .registerRegion(R.region(id(0)))) else {
      Issue.record("the room freed by unregistering was not given back")
      return
    }
    guard case .success? = h.send(other, .registerRegion(R.region(id(0)))) else {
      Issue.record("another user's app was refused")
      return
    }
  }
}
