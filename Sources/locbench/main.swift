import LocSystem

/// One benchmark group, run as `locbench NAME [ARGS]`.
protocol Benchmark {
  static var name: String { get }
  static func run(_ arguments: [String]) -> Int32
}

/// `[PATH] [--rounds N]`, the arguments of the data-driven groups.
func pathAndRounds(_ arguments: [String], path defaultPath: String, rounds defaultRounds: Int) -> (
  String, Int
) {
  var path = defaultPath
  var rounds = defaultRounds
  var i = 0
  while i < arguments.count {
    if arguments[i] == "--rounds", i + 1 < arguments.count, let n = Int(arguments[i + 1]), n > 0 {
      rounds = n
      i += 2
    } else {
      path = arguments[i]
      i += 1
    }
  }
  return (path, rounds)
}

/// Every benchmark group. Add one line per group.
let allBenchmarks: [any Benchmark.Type] = [
  SolarBenchmark.self,
  NMEABenchmark.self,
  DaemonBenchmark.self,
  TzBenchmark.self,
  TzParseBenchmark.self,
  TimersBenchmark.self,
  BeaconsBenchmark.self,
  JSONBenchmark.self,
  RegionsBenchmark.self,
  AppsBenchmark.self,
  RegionsEngineBenchmark.self,
  HeadingBenchmark.self,
]

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, let bench = allBenchmarks.first(where: { $0.name == name }) else {
  print("usage: locbench GROUP [ARGS]; groups: \(allBenchmarks.map { $0.name }.joined(separator: " "))")
  CurrentProcess.exit(2)
}
CurrentProcess.exit(bench.run(Array(arguments.dropFirst())))
