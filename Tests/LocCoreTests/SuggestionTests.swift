import LocCore
import Testing

/// "Did you mean ...?" for mistyped commands and options.
@Suite struct SuggestionTests {
  static let commands = [
    "status", "watch", "wait", "locate", "refresh", "set-location", "clear-location", "reload", "timers",
    "sun", "tz",
    "decode", "beacons", "help", "version", "completion",
  ]

  @Test func distanceCountsEditsAndSwaps() {
    #expect(Suggestion.distance("status", "status") == 0)
    #expect(Suggestion.distance("stauts", "status") == 1)  // one swap of neighbours
    #expect(Suggestion.distance("statu", "status") == 1)
    #expect(Suggestion.distance("xstatus", "status") == 1)
    #expect(Suggestion.distance("kitten", "sitting") == 3)  // the textbook Levenshtein example
    #expect(Suggestion.distance("", "abc") == 3)
  }

  @Test func closestWords() {
    #expect(Suggestion.closest(to: "stauts", among: Self.commands) == "status")
    #expect(Suggestion.closest(to: "timer", among: Self.commands) == "timers")
    #expect(Suggestion.closest(to: "set-loc", among: Self.commands) == "set-location")  // a unique prefix
    #expect(Suggestion.closest(to: "STATUS", among: Self.commands) == "status")
    #expect(Suggestion.closest(to: "frobnicate", among: Self.commands) == nil)
    #expect(Suggestion.closest(to: "", among: Self.commands) == nil)
    #expect(
      Suggestion.hint(for: "jsno", among: ["json", "socket"], prefix: "--") == "; did you mean '--json'?")
    #expect(Suggestion.hint(for: "zzzz", among: ["json"]).isEmpty)
  }

  @Test func aLongWordCostsLittle() {
    let long = String(repeating: "x", count: 100_000)
    #expect(Suggestion.closest(to: long, among: Self.commands) == nil)
  }
}
