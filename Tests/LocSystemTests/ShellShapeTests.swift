import Foundation
import Testing

/// The shape of the shell, read from its source: the daemon is split into parts with one
/// job each (the driver, the faces, the state files, the source set, the replay, the
/// engine's timers, the system actions), and no type in Daemon/ keeps more than 12 stored
/// properties (issue 22). A field added to `Daemon` for a new feature fails here: it belongs
/// in a part, or in a new one. The same bound holds every type of LocSystem, LocClient
/// and LocHost.
@Suite struct ShellShapeTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// The stored properties of each type declared at the top level of `source`: `let`/`var`
  /// members one indentation deep that are not computed (a `{` with no `=` before it).
  static func storedProperties(_ source: String) -> [String: [String]] {
    var out: [String: [String]] = [:]
    var current: String? = nil
    let declaration = /^(?:public |internal |fileprivate |private )?(?:final )?(?:class|struct|actor) (\w+)/
    let member =
      /^  (?:@\w+ )*(?:public |internal |fileprivate |private )?(?:(?:public |internal )?private\(set\) |internal\(set\) )?(?:lazy |weak |unowned )?(?:let|var) (\w+)(.*)$/
    for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
      if let m = line.firstMatch(of: declaration) {
        current = String(m.1)
        out[current!, default: []] = []
        continue
      }
      if line.hasPrefix("extension ") || line.hasPrefix("enum ") || line.hasPrefix("public enum ") {
        current = nil
        continue
      }
      guard let type = current, let m = line.firstMatch(of: member) else { continue }
      let rest = String(m.2)
      let brace = rest.firstIndex(of: "{")
      let equals = rest.firstIndex(of: "=")
      let computed = brace != nil && (equals == nil || brace! < equals!)
      if !computed { out[type, default: []].append(String(m.1)) }
    }
    return out
  }

  /// The stored properties of every type declared in the Swift files under `folder` and
  /// its subfolders.
  static func types(under folder: String) throws -> [String: [String]] {
    let dir = root.appendingPathComponent(folder)
    var all: [String: [String]] = [:]
    let files = try #require(FileManager.default.enumerator(atPath: dir.path), "\(folder) is a folder")
    for case let name as String in files where name.hasSuffix(".swift") {
      let text = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
      all.merge(storedProperties(text)) { $0 + $1 }
    }
    return all
  }

  @Test func theCounterSeesStoredAndSkipsComputedProperties() {
    let source = """
      final class Sample {
        let a: Int
        var b = 1
        lazy var c: Int = make()
        private(set) var d: [Int] = []
        var computed: Int { a + b }
        var withObserver: Int = 0 {
          didSet {}
        }
        struct Nested {
          var ignored: Int
        }
        func f() { var local = 1 }
      }
      extension Sample {
        var more: Int { 2 }
      }
      """
    #expect(Self.storedProperties(source)["Sample"] == ["a", "b", "c", "d", "withObserver"])
  }

  @Test func noTypeOfTheDaemonHoldsMoreThanTwelveStoredProperties() throws {
    let types = try Self.types(under: "Sources/LocSystem/Daemon")
    let daemon = try #require(types["Daemon"], "Daemon is declared in Sources/LocSystem/Daemon")
    #expect(daemon.contains("driver") && daemon.contains("faces") && daemon.contains("sources"))
    for (type, properties) in types.sorted(by: { $0.key < $1.key }) {
      #expect(
        properties.count <= 12, "\(type) holds \(properties.count): \(properties.joined(separator: ", "))")
    }
  }

  /// Issue 22: the GeoClue face's rules are a machine (`GeoClueFace`, in GeoClue/Face/) and
  /// the bus adapter around it is thin; no type of either holds more than 12.
  @Test func noTypeOfTheGeoClueFaceHoldsMoreThanTwelveStoredProperties() throws {
    // The walk is recursive: GeoClue/ with Face/.
    let types = try Self.types(under: "Sources/LocSystem/GeoClue")
    let service = try #require(types["GeoClueService"])
    #expect(service.contains("face") && types["GeoClueFace"] != nil && types["GeoClueClient"] != nil)
    for (type, properties) in types.sorted(by: { $0.key < $1.key }) {
      #expect(
        properties.count <= 12, "\(type) holds \(properties.count): \(properties.joined(separator: ", "))")
    }
  }

  @Test func noTypeOfTheShellTheHostOrTheClientHoldsMoreThanTwelveStoredProperties() throws {
    let shell = try Self.types(under: "Sources/LocSystem")
    let client = try Self.types(under: "Sources/LocClient")
    // LocHost: the host wrappers that left the shell whole (decision 0038's addendum).
    let host = try Self.types(under: "Sources/LocHost")
    // The walk reaches the subfolders: a source, a Bluetooth type, a client type.
    #expect(shell["StreamConnection"] != nil && shell["BlueZSource"] != nil)
    #expect(client["ControlClient"] != nil && !host.isEmpty)
    let all = shell.merging(client, uniquingKeysWith: +).merging(host, uniquingKeysWith: +)
    for (type, properties) in all.sorted(by: { $0.key < $1.key }) {
      #expect(
        properties.count <= 12,
        "\(type) holds \(properties.count) (at most 12): \(properties.joined(separator: ", "))")
    }
  }
}
