import LocCore
import LocSystem

/// `locctl set-location LAT LON [--name TEXT] [--accuracy M]`.
enum SetLocationCommand: LocctlCommand {
  static let name = "set-location"
  static let summary = "set the manual location (admin)"

  static func run(_ arguments: [String]) -> Int32 {
    guard let options = parseOptions(arguments, valued: ["name", "accuracy"], command: name) else {
      return ExitStatus.usage
    }
    guard options.positionals.count == 2, let lat = Double(options.positionals[0]),
      let lon = Double(options.positionals[1])
    else {
      printError("usage: locctl set-location LAT LON [--name TEXT] [--accuracy METRES]")
      return ExitStatus.usage
    }
    guard Coordinate(lat: lat, lon: lon) != nil else {
      printError("locctl set-location: latitude must be -90..90 and longitude -180..180")
      return ExitStatus.usage
    }
    var params: JSONObject = ["lat": .number(lat), "lon": .number(lon)]
    if let n = options.value("name") { params["name"] = .string(n) }
    if let a = options.value("accuracy") {
      guard let m = Double(a), m >= 0 else {
        printError("locctl set-location: --accuracy must be a number of metres")
        return ExitStatus.usage
      }
      params["accuracy"] = .number(m)
    }
    return withDaemon { client throws(ControlClient.Failure) in
      _ = try client.call("set-location", params)
      print("manual location set")
      return ExitStatus.ok
    }
  }
}

/// A command without arguments that calls one admin method and prints one line.
protocol SimpleAdminCommand: LocctlCommand {
  /// The protocol method.
  static var method: String { get }
  /// What to print on success.
  static var done: String { get }
}

extension SimpleAdminCommand {
  static func run(_ arguments: [String]) -> Int32 {
    guard arguments.isEmpty else {
      printError("usage: locctl \(name)")
      return ExitStatus.usage
    }
    return withDaemon { client throws(ControlClient.Failure) in
      _ = try client.call(method)
      print(done)
      return ExitStatus.ok
    }
  }
}

/// `locctl clear-location`.
enum ClearLocationCommand: SimpleAdminCommand {
  static let name = "clear-location"
  static let summary = "forget the manual location (admin)"
  static let method = "clear-location"
  static let done = "manual location cleared"
}

/// `locctl reload`.
enum ReloadCommand: SimpleAdminCommand {
  static let name = "reload"
  static let summary = "reload locd's configuration (admin)"
  static let method = "reload"
  static let done = "configuration reloaded"
}
