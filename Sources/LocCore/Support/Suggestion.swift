/// "Did you mean ...?": the known word closest to a mistyped one.
public enum Suggestion {
  /// The candidate closest to `word`: one it starts (a unique abbreviation), else the
  /// nearest by edit distance (insertions, deletions, substitutions and swaps of neighbours,
  /// case ignored) when that is small for the word's length; nil when nothing is close.
  public static func closest(to word: String, among candidates: [String]) -> String? {
    let lowered = word.lowercased()
    guard !lowered.isEmpty else { return nil }
    let prefixed = candidates.filter { $0.lowercased().hasPrefix(lowered) }
    if prefixed.count == 1 { return prefixed[0] }
    let limit = max(1, min(3, lowered.count / 3 + 1))
    var best: (word: String, distance: Int)? = nil
    for candidate in candidates {
      let d = distance(lowered, candidate.lowercased())
      if d <= limit, d < (best?.distance ?? Int.max) { best = (candidate, d) }
    }
    return best?.word
  }

  /// `; did you mean 'X'?` or nothing.
  public static func hint(for word: String, among candidates: [String], prefix: String = "") -> String {
    closest(to: word, among: candidates).map { "; did you mean '\(prefix)\($0)'?" } ?? ""
  }

  /// The optimal string alignment distance between `a` and `b` (Damerau–Levenshtein with
  /// each substring edited at most once). Words here are short: quadratic is fine, and the
  /// input is cut to 64 characters so a long argument costs nothing.
  public static func distance(_ a: String, _ b: String) -> Int {
    let x = Array(a.prefix(64))
    let y = Array(b.prefix(64))
    if x.isEmpty || y.isEmpty { return max(x.count, y.count) }
    var previous2 = [Int](repeating: 0, count: y.count + 1)
    var previous = Array(0...y.count)
    var current = [Int](repeating: 0, count: y.count + 1)
    for i in 1...x.count {
      current[0] = i
      for j in 1...y.count {
        let cost = x[i - 1] == y[j - 1] ? 0 : 1
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
          current[j] = min(current[j], previous2[j - 2] + 1)
        }
      }
      (previous2, previous, current) = (previous, current, previous2)
    }
    return previous[y.count]
  }
}
