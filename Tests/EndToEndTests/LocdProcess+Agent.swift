import Foundation
import Glibc

extension LocdProcess {
  /// A real `locctl agent --policy` for the calling user, answering by `rules` (written to
  /// the daemon's directory), registered with locd before this returns.
  func policyAgent(_ rules: String) throws -> Child {
    let rulesPath = directory + "/agent.rules"
    try rules.write(toFile: rulesPath, atomically: true, encoding: .utf8)
    let agent = try Child(Binaries.locctl.path, ["--socket", socketPath, "agent", "--policy", rulesPath])
    _ = try waitForStatus { $0.apps?.agents.contains(getuid()) == true }
    return agent
  }
}
