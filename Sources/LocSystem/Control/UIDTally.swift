/// How many of something each uid holds, and all together: the count under the socket's
/// client slots (`ClientSlots`) and the GeoClue face's unanswered agent calls
/// (`GeoClueAgentCalls`), which each decide their own limits on it.
struct UIDTally {
  /// Held in all.
  private(set) var total = 0
  private var byUID: [UInt32: Int] = [:]

  /// Held by `uid`.
  func held(by uid: UInt32) -> Int { byUID[uid] ?? 0 }

  /// `uid` takes one.
  mutating func take(uid: UInt32) {
    total += 1
    byUID[uid, default: 0] += 1
  }

  /// `uid` gives one back (nothing if it holds none).
  mutating func release(uid: UInt32) {
    guard let n = byUID[uid] else { return }
    total -= 1
    byUID[uid] = n > 1 ? n - 1 : nil
  }
}
