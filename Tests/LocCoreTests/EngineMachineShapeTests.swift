import Foundation
import Testing

/// The shape of the engine's machines, read from their source (issue 22, item 5;
/// docs/decisions/0040-apps-machines.md, 0042-engine-machines-private.md): every
/// `EngineMachine` in LocCore keeps its stored properties `private` (a few read-only facts
/// `private(set)`, listed below with the reason), and the engine's files never reach into a
/// machine's stored field: they call its methods or ask its computed queries. The apps
/// machines are held to methods only. A `var` made internal for a quick fix, or an engine
/// file writing `regions.counters.x += 1`, fails here.
@Suite struct EngineMachineShapeTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// The stored properties kept `private(set)`, by machine: each is a read-only fact the
  /// engine reads whole (for status, a log line, a reply) and only the machine's own methods
  /// change; a getter under a second name would say nothing more. Anything that changes
  /// state goes through a method.
  static let readOnly: [String: Set<String>] = [
    // The latest accepted fix, each source's fix report, the state file's problem at start.
    "PositionMachine": ["latest", "reports", "stateProblem"],
    // Requests refused for lack of permission: counted by `admit`, read by status.
    "SessionMachine": ["permissionDenied"],
    // When the engine started: set once by `started(at:)`.
    "StatusLineMachine": ["startedAt"],
    // The timer files' problems of the last load, listed by `list-timers`.
    "TimerMachine": ["problems"],
  ]

  /// Every machine the engine has (one stored property each on `Engine`).
  static let machines: Set<String> = [
    "PositionMachine", "AcquisitionMachine", "ZoneMachine", "RegenerationMachine", "TimerMachine",
    "WaitMachine", "SessionMachine", "AppAuthorizationMachine", "AppPromptMachine", "AppDeliveryMachine",
    "StatusLineMachine", "BeaconSessionMachine", "RegionsMachine", "ArmedTimers", "NetworkLookupMachine",
    "HeadingMachine", "LightDarkMachine", "SkyDemandMachine",
  ]

  /// The machines with one entry shaped like the engine's, `mutating func handle(_ input:
  /// Input, at now: Instant) -> [Output]`, for what happens to them; the others answer each
  /// call with its own type (decision 0042).
  static let handleEntries: Set<String> = ["RegionsMachine", "BeaconSessionMachine", "HeadingMachine"]

  /// The Swift files of `folder`, by name.
  static func sources(_ folder: String) throws -> [(name: String, text: String)] {
    let dir = root.appendingPathComponent(folder)
    return try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".swift") }
      .sorted()
      .map { ($0, try String(contentsOf: dir.appendingPathComponent($0), encoding: .utf8)) }
  }

  /// The Swift files under `folder` and its subfolders, by path below it.
  static func allSources(_ folder: String) throws -> [(name: String, text: String)] {
    let dir = root.appendingPathComponent(folder)
    let paths = try FileManager.default.subpathsOfDirectory(atPath: dir.path)
    return try paths.filter { $0.hasSuffix(".swift") }.sorted()
      .map { ($0, try String(contentsOf: dir.appendingPathComponent($0), encoding: .utf8)) }
  }

  /// The stored properties of each `EngineMachine` declared at the top level of `source`,
  /// with their access as written (`""`, `"private "`, `"private(set) "`, …): `let`/`var`
  /// members one indentation deep, neither static nor computed (a `{` with no `=` before
  /// it). Every machine found is a key, with an empty list when it stores nothing.
  static func storedProperties(_ source: String) -> [String: [(access: String, name: String)]] {
    var out: [String: [(access: String, name: String)]] = [:]
    var current: String? = nil
    let declaration = /^(?:public |internal |package )?struct (\w+)\s*:[^{]*\bEngineMachine\b/
    let member =
      /^  (?:@\w+ )*((?:public |internal |package |fileprivate |private )?(?:private\(set\) )?)(?:let|var) (\w+)(.*)$/
    for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
      if let m = line.firstMatch(of: declaration) {
        current = String(m.1)
        out[current!, default: []] = []
        continue
      }
      if let first = line.first, first != " ", first != "}" { current = nil }
      guard let type = current, let m = line.firstMatch(of: member) else { continue }
      let rest = String(m.3)
      let brace = rest.firstIndex(of: "{")
      let equals = rest.firstIndex(of: "=")
      let computed = brace != nil && (equals == nil || brace! < equals!)
      if !computed { out[type, default: []].append((String(m.1), String(m.2))) }
    }
    return out
  }

  /// The stored properties of each machine in `source` that are not `private`, written with
  /// their access (`"private(set) readable"`).
  static func exposedStoredProperties(_ source: String) -> [String: [String]] {
    storedProperties(source).mapValues {
      $0.filter { $0.access != "private " }.map { "\($0.access)\($0.name)" }
    }
  }

  /// The places in `source` where `property` (an engine property holding a machine) is
  /// followed by a member that is not called and, when `fields` is given, is one of them:
  /// `appDelivery.index`, not `appDelivery.key(of:)`.
  static func fieldReaches(_ source: String, through property: String, fields: Set<String>? = nil) -> [String]
  {
    var out: [String] = []
    for line in source.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//")
    {
      for m in line.matches(of: /\b(\w+)\.(\w+)(\()?/) where m.1 == property && m.3 == nil {
        if let fields, !fields.contains(String(m.2)) { continue }
        out.append("\(property).\(m.2)")
      }
    }
    return out
  }

  /// The engine's properties that hold a machine, with the machine's type: `var zones:
  /// ZoneMachine` and `var waits = WaitMachine()` alike.
  static func machineProperties(_ engine: String) -> [String: String] {
    var out: [String: String] = [:]
    for m in engine.matches(of: /\n  var (\w+)(?:: (\w+)| = (\w+)\()/) {
      if let type = m.2 ?? m.3 { out[String(m.1)] = String(type) }
    }
    return out
  }

  /// Every machine's stored properties over every file of LocCore.
  static func everyMachine() throws -> [String: [(access: String, name: String)]] {
    var machines: [String: [(access: String, name: String)]] = [:]
    for file in try allSources("Sources/LocCore") {
      machines.merge(storedProperties(file.text)) { $0 + $1 }
    }
    return machines
  }

  @Test func theCheckersSeeWhatTheyLookFor() {
    let machine = """
      struct Sample: Sendable, EngineMachine {
        static let limit = 3
        private var hidden = 1
        var leaked: Int = 0
        private(set) var readable = [1]
        let fixed: Int
        var computed: Int { hidden + 1 }
        struct Nested {
          var ignored: Int
        }
        func f() { var local = 1 }
      }
      struct Other {
        var notAMachine = 1
      }
      """
    #expect(
      Self.exposedStoredProperties(machine) == ["Sample": ["leaked", "private(set) readable", "fixed"]])
    #expect(
      Self.storedProperties(machine)["Sample"]?.map(\.name) == ["hidden", "leaked", "readable", "fixed"])
    let engine = """
      let a = appDelivery.key(of: id)
      let b = appDelivery.index.lists(.location)
      // appDelivery.commented
      regions.counters.x += 1
      if regions.isMonitoring { regions.count(\\.x) }
      """
    #expect(Self.fieldReaches(engine, through: "appDelivery") == ["appDelivery.index"])
    #expect(
      Self.fieldReaches(engine, through: "regions", fields: ["counters", "count"]) == ["regions.counters"])
    #expect(
      Self.machineProperties("struct E {\n  var zones: ZoneMachine\n  var waits = WaitMachine()\n}")
        == ["zones": "ZoneMachine", "waits": "WaitMachine"])
  }

  @Test func everyEngineMachineKeepsItsStatePrivate() throws {
    let machines = try Self.everyMachine()
    #expect(Set(machines.keys) == Self.machines)
    for (machine, stored) in machines.sorted(by: { $0.key < $1.key }) {
      let allowed = Self.readOnly[machine] ?? []
      let exposed = stored.filter {
        $0.access != "private " && !($0.access == "private(set) " && allowed.contains($0.name))
      }
      #expect(
        exposed.isEmpty,
        "\(machine) exposes stored state: \(exposed.map { "\($0.access)\($0.name)" }.joined(separator: ", "))"
      )
      // The list names only what is there, kept private(set): nothing stale.
      let kept = Set(stored.filter { $0.access == "private(set) " }.map(\.name))
      #expect(allowed.isSubset(of: kept), "\(machine): readOnly lists \(allowed.subtracting(kept).sorted())")
    }
  }

  @Test func theMachinesWithAHandleEntryAreTheListedOnes() throws {
    var found: Set<String> = []
    for file in try Self.allSources("Sources/LocCore") {
      let entry = file.text.contains(/\n  mutating func handle\(_ input: Input, at now: Instant\) -> \[\w+\]/)
      for machine in Self.storedProperties(file.text).keys where entry { found.insert(machine) }
    }
    #expect(found == Self.handleEntries)
  }

  @Test func theEngineReachesNoMachinesStoredField() throws {
    let machines = try Self.everyMachine()
    let engineFiles = try Self.sources("Sources/LocCore/Engine")
    let engine = try #require(engineFiles.first { $0.name == "Engine.swift" }).text
    let properties = Self.machineProperties(engine).filter { machines[$0.value] != nil }
    #expect(Set(properties.values) == Self.machines)
    for file in engineFiles {
      for (property, type) in properties.sorted(by: { $0.key < $1.key }) {
        // The apps machines are asked by methods only (decision 0040); the others also by
        // computed queries, and read the fields listed in `readOnly`.
        let isApps = type.hasPrefix("App")
        let stored = Set(machines[type, default: []].map(\.name)).subtracting(Self.readOnly[type] ?? [])
        let reaches = Self.fieldReaches(file.text, through: property, fields: isApps ? nil : stored)
        #expect(reaches.isEmpty, "\(file.name) reaches into \(reaches.joined(separator: ", "))")
      }
    }
  }
}
