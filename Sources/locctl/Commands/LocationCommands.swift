import LocCore
import LocHost
import LocProtocol

/// `locctl set-location LAT,LON [--name TEXT] [--accuracy DISTANCE]`.
enum SetLocationCommand {
  static let spec = CommandSpec(
    name: "set-location", summary: "set the manual location, used when there is no fix (admin)",
    usage: [
      "set-location LAT,LON [--name TEXT] [--accuracy DISTANCE] [--json]", "set-location LAT LON [...]",
    ],
    options: [
      .valued("name", "TEXT", "a name for it (at most 128 bytes), shown by status"),
      .valued("accuracy", "DISTANCE", "how accurate it is: 100m, 2km"),
    ],
    help: """
      Used when there is no fix and no cached position; kept across restarts in the state file.
      The coordinate takes any form of COORDINATES in locctl(1): 59.9139,10.7522, 59.9139 10.7522,
      59°54'50"N 10°45'8"E, geo:59.9139,10.7522;u=35 (whose u= is the accuracy unless --accuracy
      is given). Prints what it set. Needs root, locd's user or the admin group.
      """,
    examples: ["sudo locctl set-location 59.9139,10.7522 --name Oslo"],
    needsDaemon: true, run: run)

  static func run(_ invocation: Invocation) throws(UsageError) -> Int32 {
    let reading = try invocation.positionalCoordinate()
    let coordinate = reading.coordinate
    var accuracy = try invocation.distance("accuracy", in: 0...20_000_000)
    if accuracy == nil, let u = reading.uncertainty {
      guard u.value <= 20_000_000 else {
        throw UsageError("the geo: URI's u=\(u.value): an accuracy must be 0 to 20000 km")
      }
      accuracy = u
    }
    let name = invocation.value("name")
    if let name, name.utf8.count > 128 { throw UsageError("--name: at most 128 bytes") }
    return withDaemon(invocation) { client throws(ControlClient.Failure) in
      let result = try client.call(.setLocation(coordinate, name: name, accuracy: accuracy))
      if invocation.json {
        Output.line(result.json.serialized)
      } else if let manual = result.manual {
        var text = "manual location set: \(describe(manual))"
        if let previous = result.previous { text += " (was \(describe(previous)))" }
        Output.line(text)
      }
      return ExitStatus.ok
    }
  }

  /// `59.9139, 10.7522 ±100 m "Oslo"`.
  static func describe(_ p: PositionView) -> String {
    var text = "\(p.coordinate.latitude.value), \(p.coordinate.longitude.value)"
    if let a = p.accuracy { text += " ±\(Numbers.short(a.value, 1)) m" }
    if let name = p.name { text += " \"\(name)\"" }
    return text
  }
}

/// `locctl clear-location`.
enum ClearLocationCommand {
  static let spec = CommandSpec(
    name: "clear-location", summary: "forget the manual location (admin)", usage: ["clear-location [--json]"],
    help: "Says so when there was none to forget.", needsDaemon: true,
    run: { invocation throws(UsageError) in
      try invocation.noPositionals()
      return withDaemon(invocation) { client throws(ControlClient.Failure) in
        let result = try client.call(.clearLocation)
        if invocation.json {
          Output.line(result.json.serialized)
        } else if let previous = result.previous {
          Output.line("manual location cleared (was \(SetLocationCommand.describe(previous)))")
        } else {
          Output.line("there was no manual location; nothing to clear")
        }
        return ExitStatus.ok
      }
    })
}

/// `locctl reload`.
enum ReloadCommand {
  static let spec = CommandSpec(
    name: "reload", summary: "reload locd's configuration and timer files (admin)", usage: ["reload"],
    help: """
      Like 'systemctl reload locd'. A broken configuration is reported (exit status 1) and the old
      one stays in effect; timer files that cannot be used are listed by 'locctl timers'.
      """,
    needsDaemon: true,
    run: { invocation throws(UsageError) in
      try invocation.noPositionals()
      return withDaemon(invocation) { client throws(ControlClient.Failure) in
        _ = try client.call(.reload)
        if invocation.json { Output.line("{}") } else { Output.line("configuration reloaded") }
        return ExitStatus.ok
      }
    })
}
