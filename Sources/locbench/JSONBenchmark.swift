import LocCore
import LocProtocol
import LocSystem

/// `locbench json [--rounds N]`: what one JSON line costs the parser as its objects grow. The
/// work per member must stay flat (a parser that looks each key up in the members so far is
/// quadratic: issue 10 measured 131 ms for one 59 KB line of 6,000 keys), and a line past the
/// member bound must be rejected after reading no more than the bound.
enum JSONBenchmark: Benchmark {
  static let name = "json"

  static func run(_ arguments: [String]) -> Int32 {
    let (_, rounds) = pathAndRounds(arguments, path: "", rounds: 5)
    print("json: CPU time, median of \(rounds) rounds")
    for members in [24, 100, 1000, 10_000, 100_000] {
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
    statusReply(rounds: rounds)
    return 0
  }

  /// A status reply as a client reads it (bench/status-reply.json, one reply of locd's, 147
  /// members): the JSON alone, and the JSON with the typed decoding `locctl status` does. This
  /// is most of what a client spends on a status round trip (locbench daemon).
  static func statusReply(rounds: Int) {
    guard let line = try? FileIO.read(path: "bench/status-reply.json") else {
      print("json: bench/status-reply.json not found (run from the repository)")
      return
    }
    let body = line.last == 0x0A ? Array(line.dropLast()) : line
    let times = 1000
    let parse = median(rounds) {
      for _ in 0..<times { _ = try? JSON.parse(body, maxDepth: 64) }
    }
    let decode = median(rounds) {
      for _ in 0..<times {
        guard case .reply(_, let result)? = try? ServerMessage.decode(body) else { continue }
        _ = try? StatusView(json: result, path: WirePath())
      }
    }
    print(
      "json: a status reply (\(body.count) bytes): parse \(format(parse * 1e6 / Double(times))) us, parse and typed decode \(format(decode * 1e6 / Double(times))) us"
    )
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
