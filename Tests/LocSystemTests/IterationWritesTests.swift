import Glibc
import LocCore
import Testing

@testable import LocSystem

/// The shell's rule for acknowledged changes (decision 0061): nothing that acknowledges goes
/// out before the files the loop iteration changed are written; each file is written once,
/// with its latest content; a reply whose change could not be written says `not-saved`.
@Suite struct IterationWritesTests {
  static let app = SessionID(1)
  static let admin = SessionID(2)
  static let watcher = SessionID(3)
  static let t0 = Instant(iso8601: "2026-06-21T10:00:00Z")!

  static func ok(_ session: SessionID, _ id: Int64) -> Effect {
    .reply(session, .number(id), .success(.done))
  }

  static func request(_ session: SessionID, _ id: Int64) -> RequestRef {
    RequestRef(session: session, id: .number(id))
  }

  static func state(_ lat: Double) -> StoredState {
    var s = StoredState()
    s.manual = Position(
      coordinate: Coordinate(lat: lat, lon: 10)!, accuracy: nil, time: t0, receivedAt: t0, source: "manual")
    return s
  }

  /// A list without a write, in an iteration without one: nothing waits.
  @Test func anAnswerWithoutAChangeGoesOutAtOnce() {
    var batch = IterationWrites()
    let status = Self.ok(Self.admin, 1)
    #expect(
      batch.take([.log(.info, "x"), status], request: Self.request(Self.admin, 1)) == [
        .log(.info, "x"), status,
      ])
    #expect(!batch.hasWork)
    #expect(batch.due(retry: false).isEmpty)
  }

  /// The engine's list for a change: the write first, then the reply and a notice. The log
  /// and the position stream go at once; the reply and the notice wait for the write.
  @Test func theAnswerToAChangeWaitsForItsWrite() {
    var batch = IterationWrites()
    let notice = Effect.push([Self.watcher], .agentPromptWithdrawn(PromptID(1), reason: "test"), at: Self.t0)
    let location = Effect.push(
      [Self.watcher], .location(ResolvedPosition(tier: .none, position: nil), fix: nil), at: Self.t0)
    let list: [Effect] = [.persistApps, .log(.notice, "granted"), Self.ok(Self.admin, 1), notice, location]
    let now = batch.take(list, request: Self.request(Self.admin, 1))
    #expect(
      now == [.log(.notice, "granted"), location], "an event other than the position stream acknowledges")
    #expect(batch.due(retry: false) == [.apps])
    let released = batch.written([.apps], failed: [:])
    #expect(released.effects == [Self.ok(Self.admin, 1), notice])
    #expect(released.notSaved == 0)
    #expect(batch.pending.isEmpty && !batch.hasWork)
  }

  /// Many changes in one iteration: one write a file, with the latest content; the answers
  /// in the order they were made, also those of lists that changed nothing but came after a
  /// change (so no client reads a later answer before an earlier one).
  @Test func manyChangesAreOneWriteAFileAndTheAnswersKeepTheirOrder() {
    var batch = IterationWrites()
    var expected: [Effect] = []
    for n in 1...50 {
      _ = batch.take([.persistApps, Self.ok(Self.app, Int64(n))], request: Self.request(Self.app, Int64(n)))
      expected.append(Self.ok(Self.app, Int64(n)))
    }
    _ = batch.take([.persist(Self.state(59)), Self.ok(Self.admin, 1)], request: Self.request(Self.admin, 1))
    _ = batch.take([.persist(Self.state(60)), Self.ok(Self.admin, 2)], request: Self.request(Self.admin, 2))
    let read = Self.ok(Self.admin, 3)
    #expect(batch.take([read], request: Self.request(Self.admin, 3)).isEmpty, "held behind the changes")
    expected += [Self.ok(Self.admin, 1), Self.ok(Self.admin, 2), read]
    #expect(batch.due(retry: false) == [.state, .apps])
    #expect(batch.state == Self.state(60), "the latest content")
    #expect(batch.written([.state, .apps], failed: [:]).effects == expected)
  }

  /// A write that fails: the reply to the request whose change is in that file says
  /// `not-saved` with the system's words; other answers (a read held for order, the change
  /// of a file that was written) go out as they were. The failed file waits, and is written
  /// again with the next change, or at a retry without one.
  @Test func aFailedWriteAnswersNotSavedAndIsWrittenAgain() throws {
    var batch = IterationWrites()
    _ = batch.take([.persistApps, Self.ok(Self.app, 1)], request: Self.request(Self.app, 1))
    _ = batch.take(
      [.persistTimers(TimerStore()), Self.ok(Self.admin, 1)], request: Self.request(Self.admin, 1))
    _ = batch.take([Self.ok(Self.admin, 2)], request: Self.request(Self.admin, 2))
    let why = "cannot write /s/apps/0.json: No space left on device"
    let released = batch.written([.apps, .timers], failed: [.apps: why])
    #expect(released.notSaved == 1)
    let first = try #require(released.effects.first)
    guard case .reply(Self.app, .number(1), .failure(let error)) = first else {
      Issue.record("\(first)")
      return
    }
    #expect(error.code == .notSaved)
    #expect(error.message == "the change is in effect but not saved: " + why)
    #expect(Array(released.effects.dropFirst()) == [Self.ok(Self.admin, 1), Self.ok(Self.admin, 2)])
    #expect(batch.pending == [.apps])
    #expect(batch.due(retry: false).isEmpty, "no change: only a retry writes it")
    #expect(batch.due(retry: true) == [.apps])
    _ = batch.take([.persist(Self.state(1)), Self.ok(Self.admin, 3)], request: Self.request(Self.admin, 3))
    #expect(batch.due(retry: false) == [.state, .apps], "a change writes what failed too")
  }

  /// Only the reply to the list's own request stands for its change: a `locate` answered in
  /// the list of a fix that moved the last known position is no `not-saved`.
  @Test func onlyTheRequestersReplyStandsForTheChange() {
    var batch = IterationWrites()
    let located = Self.ok(Self.watcher, 9)
    _ = batch.take([.persist(Self.state(1)), located], request: nil)
    let released = batch.written(
      [.state], failed: [.state: "cannot write /s/state.json: Read-only file system"])
    #expect(released.effects == [located])
    #expect(released.notSaved == 0)
  }

  /// The end of an iteration, on the real loop (sd_event_add_post at idle priority, as the
  /// daemon has it): two descriptors ready at once are both served, and the work one of
  /// them left for a later turn (a client's requests past its budget), and then the hook
  /// runs, once, before the loop waits again.
  @Test func theHookRunsOnceAfterEverySourceThatWasReady() throws {
    let loop = try EventLoop()
    var seen: [String] = []
    try loop.afterEachIteration(priority: .idle) { seen.append("end") }
    let a = try DescriptorPair.pipe(nonBlocking: true)
    let b = try DescriptorPair.pipe(nonBlocking: true)
    let writerA = a.second
    let writerB = b.second
    func watch(_ reader: consuming FileDescriptor, _ name: String) throws -> IOWatch {
      let number = reader.rawValue
      return try loop.watch(reader, events: Epoll.input) { _ in
        var byte: UInt8 = 0
        _ = Glibc.read(number, &byte, 1)
        seen.append(name)
        if name == "a" { loop.soon { seen.append("a, later") } }
      }
    }
    let watches = [try watch(a.first, "a"), try watch(b.first, "b")]
    try writerA.writeAll([0x2A])
    try writerB.writeAll([0x2A])
    for _ in 0..<4 { loop.runOnce(timeoutMicroseconds: 100_000) }
    #expect(seen.sorted() == ["a", "a, later", "b", "end"])
    #expect(seen.last == "end", "\(seen)")
    seen = []
    try writerB.writeAll([0x2A])
    for _ in 0..<3 { loop.runOnce(timeoutMicroseconds: 10_000) }
    #expect(seen == ["b", "end"])
    withExtendedLifetime(watches) {}
  }
}
