import LocCore

/// The state files one loop iteration changed, each with its latest content, and the
/// effects that acknowledge those changes, held until the files are written and synced
/// (docs/decisions/0061-acknowledged-means-saved.md). A pure value, like `OutputQueue`: the
/// daemon hands it every effect list as the engine makes it and carries out at once what
/// comes back; at the end of the iteration it writes the files `due` names, once each, and
/// carries out what `written` gives back: the held effects in their order, a reply whose
/// change could not be written turned into `not-saved`.
///
/// So an `ok` never goes out before its change is on disk, and the writes of many changes
/// made in one iteration (a client's pipelined requests, several clients served in turn) are
/// one write per file, not one per change.
struct IterationWrites {
  /// A file of the state directory (the apps store is a file per user, written together).
  enum File: Int, CaseIterable, Comparable, Sendable {
    /// state.json: the last known position and the manual location.
    case state
    /// timers.json: the runtime timers and what locd remembers of every timer.
    case timers
    /// The users' apps files: decisions, registrations, regions.
    case apps

    static func < (a: File, b: File) -> Bool { a.rawValue < b.rawValue }
  }

  /// What `written` gives back.
  struct Released {
    /// The held effects, in their order.
    var effects: [Effect] = []
    /// Replies turned into `not-saved`.
    var notSaved = 0
  }

  /// state.json's latest content not yet written.
  private(set) var state: StoredState?
  /// timers.json's latest content not yet written.
  private(set) var timers: TimerStore?
  /// Whether the apps store has a change not yet written (its content is the engine's
  /// `appsStore` when the write is done).
  private(set) var apps = false
  /// The files changed in this iteration; the others with content waited since a failed
  /// write and are written again with the next change or at a retry.
  private var fresh: Set<File> = []
  /// What waits for the writes, in order.
  private var held: [Held] = []

  private struct Held {
    var effect: Effect
    /// The files the effect stands for: for the reply to the request whose list it is, the
    /// files that list changed; none for every other effect (it waits to keep the order).
    var needs: Set<File>
  }

  /// The files with content not yet written.
  var pending: Set<File> {
    var files: Set<File> = []
    if state != nil { files.insert(.state) }
    if timers != nil { files.insert(.timers) }
    if apps { files.insert(.apps) }
    return files
  }

  /// Whether the end of the iteration has work: a changed file or a held effect.
  var hasWork: Bool { !fresh.isEmpty || !held.isEmpty }

  /// Takes the effect list of `request` (nil: of another event): returns the effects to
  /// carry out now, in order. Each write is kept, the latest content of each file; an
  /// effect that acknowledges (`Effect.acknowledges`) is kept while anything of this
  /// iteration waits for a write, and after it everything that acknowledges, so no client
  /// sees a later answer before an earlier one. The rest (logs, timers, the position
  /// stream) is carried out at once.
  mutating func take(_ effects: [Effect], request: RequestRef?) -> [Effect] {
    var now: [Effect] = []
    var changed: Set<File> = []
    for effect in effects {
      switch effect {
      case .persist(let content):
        state = content
        changed.insert(.state)
      case .persistTimers(let content):
        timers = content
        changed.insert(.timers)
      case .persistApps:
        apps = true
        changed.insert(.apps)
      default:
        guard effect.acknowledges, !(fresh.isEmpty && changed.isEmpty && held.isEmpty) else {
          now.append(effect)
          continue
        }
        held.append(Held(effect: effect, needs: IterationWrites.answers(effect, request) ? changed : []))
      }
    }
    fresh.formUnion(changed)
    return now
  }

  /// The files to write at the end of the iteration: every file with content when one
  /// changed in it or when `retry` (a retry of failed writes is due), else none.
  func due(retry: Bool) -> Set<File> { retry || !fresh.isEmpty ? pending : [] }

  /// The files `attempted` were written but those in `failed` (with why, in words), and
  /// those in `refused` were left as they were on purpose (a user's apps file over its size
  /// limit): what was written or refused is forgotten, what failed waits for the next change
  /// or retry, and the held effects come back in order, the reply standing for a change in a
  /// file that failed or was refused turned into `not-saved` with the reason. A refusal is
  /// per file kind: a reply whose list changed the apps store in the same iteration as the
  /// refused user's change is answered `not-saved` too, the safe side of the two.
  mutating func written(
    _ attempted: Set<File>, failed: [File: String], refused: [File: String] = [:]
  ) -> Released {
    for file in attempted where failed[file] == nil {
      switch file {
      case .state: state = nil
      case .timers: timers = nil
      case .apps: apps = false
      }
    }
    fresh = []
    var released = Released()
    released.effects.reserveCapacity(held.count)
    for h in held {
      let reasons = h.needs.sorted().compactMap { failed[$0] ?? refused[$0] }
      if !reasons.isEmpty, case .reply(let session, let id, .success) = h.effect {
        released.notSaved += 1
        let error = RequestError(
          .notSaved, "the change is in effect but not saved: " + reasons.joined(separator: "; "))
        released.effects.append(.reply(session, id, .failure(error)))
      } else {
        released.effects.append(h.effect)
      }
    }
    held = []
    return released
  }

  /// Whether `effect` is the reply to `request`.
  private static func answers(_ effect: Effect, _ request: RequestRef?) -> Bool {
    guard let request, case .reply(let session, let id, _) = effect else { return false }
    return session == request.session && id == request.id
  }
}
