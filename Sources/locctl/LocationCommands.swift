import LocCore
import LocProtocol
import LocSystem

/// `locctl set-location LAT LON [--name TEXT] [--accuracy M]`.
enum SetLocationCommand: LocctlCommand {
  static let name = "set-location"
  static let summary = "set the manual location (admin)"

  static func run(_ arguments: [String], socket: String) -> Int32 {
    guard let options = parseOptions(arguments, valued: ["name", "accuracy"], command: name) else {
      return ExitStatus.usage
    }
    guard options.positionals.count == 2, let lat = Double(options.positionals[0]),
      let lon = Double(options.positionals[1])
    else {
      printError("usage: locctl set-location LAT LON [--name TEXT] [--accuracy METRES]")
      return ExitStatus.usage
    }
    guard let coordinate = Coordinate(lat: lat, lon: lon) else {
      printError("locctl set-location: latitude must be -90..90 and longitude -180..180")
      return ExitStatus.usage
    }
    var accuracy: Meters? = nil
    if let a = options.value("accuracy") {
      guard let m = Double(a), m >= 0 else {
        printError("locctl set-location: --accuracy must be a number of metres")
        return ExitStatus.usage
      }
      accuracy = Meters(m)
    }
    return withDaemon(socket) { client throws(ControlClient.Failure) in
      _ = try client.call(.setLocation(coordinate, name: options.value("name"), accuracy: accuracy))
      print("manual location set")
      return ExitStatus.ok
    }
  }
}

/// `locctl clear-location`.
enum ClearLocationCommand: LocctlCommand {
  static let name = "clear-location"
  static let summary = "forget the manual location (admin)"

  static func run(_ arguments: [String], socket: String) -> Int32 {
    runSimple(name, arguments, socket, .clearLocation, done: "manual location cleared")
  }
}

/// `locctl reload`.
enum ReloadCommand: LocctlCommand {
  static let name = "reload"
  static let summary = "reload locd's configuration (admin)"

  static func run(_ arguments: [String], socket: String) -> Int32 {
    runSimple(name, arguments, socket, .reload, done: "configuration reloaded")
  }
}

/// A command without arguments that makes one call and prints one line.
func runSimple<R>(_ name: String, _ arguments: [String], _ socket: String, _ call: Call<R>, done: String)
  -> Int32
{
  guard arguments.isEmpty else {
    printError("usage: locctl \(name)")
    return ExitStatus.usage
  }
  return withDaemon(socket) { client throws(ControlClient.Failure) in
    _ = try client.call(call)
    print(done)
    return ExitStatus.ok
  }
}
