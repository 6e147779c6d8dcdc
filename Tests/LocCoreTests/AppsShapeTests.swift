import Foundation
import Testing

/// The shape of the apps machines, read from their source (issue 22, item 5;
/// docs/decisions/0040-apps-machines.md): each machine in LocCore/Apps keeps every stored
/// property `private`, and the engine's files reach them only through methods, never a
/// field. A `var` made internal for a quick fix, or an engine file reading
/// `appDelivery.someField`, fails here.
@Suite struct AppsShapeTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// The Swift files of `folder`, by name.
  static func sources(_ folder: String) throws -> [(name: String, text: String)] {
    let dir = root.appendingPathComponent(folder)
    return try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".swift") }
      .sorted()
      .map { ($0, try String(contentsOf: dir.appendingPathComponent($0), encoding: .utf8)) }
  }

  /// The stored properties of each `EngineMachine` declared at the top level of `source` that
  /// are not `private`: `let`/`var` members one indentation deep, neither static nor
  /// computed (a `{` with no `=` before it). Every machine found is a key, with an empty list
  /// when it is clean.
  static func exposedStoredProperties(_ source: String) -> [String: [String]] {
    var out: [String: [String]] = [:]
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
      if !computed, m.1 != "private " { out[type, default: []].append("\(m.1)\(m.2)") }
    }
    return out
  }

  /// The places in `source` where `property` (an engine property holding a machine) is
  /// followed by a member that is not called: `appDelivery.index`, not `appDelivery.key(of:)`.
  static func fieldReaches(_ source: String, through property: String) -> [String] {
    var out: [String] = []
    for line in source.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//")
    {
      for m in line.matches(of: /\b(\w+)\.(\w+)(\()?/) where m.1 == property && m.3 == nil {
        out.append("\(property).\(m.2)")
      }
    }
    return out
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
    let engine = """
      let a = appDelivery.key(of: id)
      let b = appDelivery.index.lists(.location)
      // appDelivery.commented
      regions.counters.x += 1
      """
    #expect(Self.fieldReaches(engine, through: "appDelivery") == ["appDelivery.index"])
  }

  @Test func appsMachinesKeepTheirStatePrivate() throws {
    var machines: [String: [String]] = [:]
    for file in try Self.sources("Sources/LocCore/Apps") {
      machines.merge(Self.exposedStoredProperties(file.text)) { $0 + $1 }
    }
    #expect(
      Set(machines.keys).isSuperset(of: ["AppAuthorizationMachine", "AppPromptMachine", "AppDeliveryMachine"])
    )
    for (machine, exposed) in machines.sorted(by: { $0.key < $1.key }) {
      #expect(exposed.isEmpty, "\(machine) exposes stored state: \(exposed.joined(separator: ", "))")
    }
  }

  @Test func theEngineCallsTheAppsMachinesMethodsOnly() throws {
    let engineFiles = try Self.sources("Sources/LocCore/Engine")
    let engine = try #require(engineFiles.first { $0.name == "Engine.swift" }).text
    // The engine's properties that hold a machine of LocCore/Apps.
    let properties = engine.matches(of: /\n  var (\w+): App\w*Machine\b/).map { String($0.1) }
    #expect(properties.sorted() == ["appAuthorization", "appDelivery", "appPrompts"])
    for file in engineFiles {
      for property in properties {
        let reaches = Self.fieldReaches(file.text, through: property)
        #expect(reaches.isEmpty, "\(file.name) reaches into \(reaches.joined(separator: ", "))")
      }
    }
  }
}
