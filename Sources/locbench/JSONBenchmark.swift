import LocCore

/// `locbench json [--rounds N]`: what one JSON line costs the parser as its objects grow. The
/// work per member must stay flat (a parser that looks each key up in the members so far is
/// quadratic: issue 10 measured 131 ms for one 59 KB line of 6,000 keys), and a line past the
/// member bound must be rejected after reading no more than the bound.
enum JSONBenchmark: Benchmark {
  static let name = "json"

  static func run(_ arguments: [String]) -> Int32 {
    let (_, rounds) = pathAndRounds(arguments, path: "", rounds: 5)
    print("json: CPU time, median of \(rounds) rounds")
    for members in [100, 1000, 10_000, 100_000] {
      let line = objectLine(members: members)
      let seconds = median(rounds) {
        _ = try? JSON.parse(line, maxMembers: members)
      }
      print(
        "json: object of \(members) members (\(line.count / 1024) KiB): \(format(seconds * 1e9 / Double(members))) ns per member, \(format(seconds * 1e3)) ms"
      )
    }
    // Issue 10's line: 6,000 short keys in 59 KB, with the default limits of every reader.
    let hostile = objectLine(members: 6000)
    var reason = ""
    let rejected = median(rounds) {
      do throws(JSONParseError) { _ = try JSON.parse(hostile) } catch { reason = error.description }
    }
    print(
      "json: 6000-member line (\(hostile.count / 1024) KiB), default limits: \(format(rejected * 1e6)) us, \(reason)"
    )
    return 0
  }

  /// `{"k0":0,"k1":1,...}` as UTF-8.
  static func objectLine(members: Int) -> [UInt8] {
    var text = "{"
    for k in 0..<members { text += (k > 0 ? "," : "") + "\"k\(k)\":\(k % 10)" }
    return Array((text + "}").utf8)
  }

  /// The median CPU time of `rounds` runs of `body`, after one warm-up run.
  static func median(_ rounds: Int, _ body: () -> Void) -> Double {
    body()
    var times: [Double] = []
    for _ in 0..<rounds {
      let start = SolarBenchmark.now()
      body()
      times.append(SolarBenchmark.now() - start)
    }
    return times.sorted()[times.count / 2]
  }

  static func format(_ value: Double) -> String { String((value * 100).rounded() / 100) }
}
