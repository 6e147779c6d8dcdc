import LocCore
import LocSystem

/// `locctl refresh [--json]`: asks locd to acquire a fresh fix now.
enum RefreshCommand: LocctlCommand {
  static let name = "refresh"
  static let summary = "acquire a fresh fix now (the receiver sleeps again once it has one)"

  static func run(_ arguments: [String], socket: String) -> Int32 {
    guard let options = parseOptions(arguments, flags: ["json"], command: name) else {
      return ExitStatus.usage
    }
    guard options.positionals.isEmpty else {
      printError("usage: locctl refresh [--json]")
      return ExitStatus.usage
    }
    return withDaemon(socket) { client throws(ControlClient.Failure) in
      let result = try client.call(.refresh)
      if options.flag("json") {
        print(result.json.serialized)
      } else {
        print(StatusCommand.describe(acquisition: result.acquisition, offset: 0, zone: "UTC"))
      }
      return ExitStatus.ok
    }
  }
}
