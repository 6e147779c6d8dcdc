import Foundation

/// Paths of the built products; `swift build` puts them next to the test bundle.
enum Binaries {
  /// The package root, found from this file's path.
  static let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
  /// The directory with the built executables (LOCD_BUILD_DIR overrides).
  static var buildDirectory: URL {
    if let dir = ProcessInfo.processInfo.environment["LOCD_BUILD_DIR"] { return URL(fileURLWithPath: dir) }
    return packageRoot.appendingPathComponent(".build/debug")
  }
  static var locd: URL { buildDirectory.appendingPathComponent("locd") }
  static var locctl: URL { buildDirectory.appendingPathComponent("locctl") }
  /// A fixture file under Tests/Fixtures.
  static func fixture(_ relative: String) -> URL {
    packageRoot.appendingPathComponent("Tests/Fixtures").appendingPathComponent(relative)
  }
}

/// The result of running a program to completion.
struct Completed {
  var status: Int32
  var stdout: String
  var stderr: String
}

/// Runs a program with arguments, optional stdin and environment additions, and waits for it.
func run(_ executable: URL, _ arguments: [String], stdin: String? = nil,
  environment: [String: String] = [:]) throws -> Completed
{
  let process = Process()
  process.executableURL = executable
  process.arguments = arguments
  var env = ProcessInfo.processInfo.environment
  for (k, v) in environment { env[k] = v }
  process.environment = env
  let out = Pipe()
  let err = Pipe()
  let input = Pipe()
  process.standardOutput = out
  process.standardError = err
  process.standardInput = input
  try process.run()
  if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
  try input.fileHandleForWriting.close()
  // Read both pipes before waiting so a large output cannot block the child.
  var outData = Data()
  var errData = Data()
  let group = DispatchGroup()
  group.enter()
  DispatchQueue.global().async {
    errData = err.fileHandleForReading.readDataToEndOfFile()
    group.leave()
  }
  outData = out.fileHandleForReading.readDataToEndOfFile()
  group.wait()
  process.waitUntilExit()
  return Completed(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
    stderr: String(decoding: errData, as: UTF8.self))
}
