import LocCore

/// The sum of several `LiveDecoder`s' counters: decoding, silences, and the bytes and
/// lines ignored while idle. `NMEAListenSource` keeps one for the peers that left, so its
/// counters only grow (SOURCES.md), and adds the connected peers' for a snapshot.
struct DecoderTotals {
  private(set) var decoding = NMEACounters()
  private(set) var silences = 0
  private(set) var ignoredBytes = 0
  private(set) var ignoredLines = 0

  /// Adds what `live` counted.
  mutating func add(_ live: LiveDecoder) {
    decoding.add(live.counters)
    silences += live.silences
    ignoredBytes += live.ignoredBytes
    ignoredLines += live.ignoredLines
  }
}
