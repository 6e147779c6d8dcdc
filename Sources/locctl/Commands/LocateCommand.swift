import LocCore
import LocHost
import LocProtocol

/// `locctl locate [--timeout DURATION] [--accuracy DISTANCE] [--json]`: one position, fresh if
/// one comes in time, else the best locd has, with where it came from.
enum LocateCommand {
  static let spec = CommandSpec(
    name: "locate",
    summary: "one position: waits up to --timeout for a fix of --accuracy, else the best known",
    usage: ["locate [--timeout DURATION] [--accuracy DISTANCE] [--json]"],
    options: [
      .valued("timeout", "DURATION", "wait this long for a fresh fix: 0 to 1h (default Timeout=, 1min)"),
      .valued("accuracy", "DISTANCE", "a fix at least this accurate: 50m, 1km (default Accuracy=, 50m)"),
    ],
    help: """
      A fresh fix at least --accuracy accurate if one is there or comes within --timeout (0 answers
      at once), waking the receiver for it; else the best locd has then: a less accurate fix, the
      cached position with its age, or the manual location, with where it came from. Exit status 1,
      with the reason and the remedy, when there is no position at all.
      """,
    examples: ["locctl locate --timeout 30s --accuracy 20m"],
    needsDaemon: true, run: run)

  /// The longest `timeout` the protocol allows (and `Timeout=` may be): without --timeout
  /// the daemon's own setting applies, so locctl waits up to this for the answer.
  static let longestTimeout: Duration = .seconds(3600)
  /// How much longer than the request's timeout locctl waits before it gives up on locd.
  static let answerMargin: Duration = .seconds(10)

  static func run(_ invocation: Invocation) throws(UsageError) -> Int32 {
    try invocation.noPositionals()
    let timeout = try invocation.duration("timeout", in: .zero...longestTimeout)
    let accuracy = try invocation.distance("accuracy", in: 0.01...20_000_000)
    return withDaemon(invocation) { client throws(ControlClient.Failure) in
      let answer = try client.call(
        .locate(timeout: timeout, accuracy: accuracy), timeout: (timeout ?? longestTimeout) + answerMargin)
      let found = answer.position.position != nil
      if invocation.json {
        Output.line(answer.json.serialized)
      } else if found {
        Output.write(render(answer))
      } else {
        printError("locctl locate: no position: \(answer.position.reason ?? "unknown reason")")
        if let remedy = answer.position.remedy { printError("locctl locate: to fix: \(remedy)") }
      }
      return found ? ExitStatus.ok : ExitStatus.failure
    }
  }

  static func render(_ a: LocateView) -> String {
    let p = a.position
    guard let position = p.position else { return "" }
    var line = Measures.coordinate(position.coordinate, accuracy: position.accuracy)
    if let acc = position.accuracy { line += " " + Measures.accuracy(acc) }
    // A configured place in status's words (the static file is no manual location, issue 43,
    // item 5); otherwise how fresh the answer is.
    var detail = [
      a.provenance == .manual
        ? PositionWords.words(tier: p.tier, provenance: p.provenance).joined(separator: " ")
        : a.provenance.rawValue
    ]
    if a.provenance == .fresh {
      if a.waited >= .milliseconds(500) { detail.append("waited \(TimeFormat.duration(a.waited))") }
    } else if let age = p.age {
      detail.append("\(TimeFormat.duration(age)) old")
    }
    if let name = position.name { detail.append("\"\(name)\"") }
    var out = line + "  (" + detail.joined(separator: ", ") + ")\n"
    if let note = a.note { out += "  \(note)\n" }
    if a.provenance != .fresh, let reason = p.reason { out += "  \(reason)\n" }
    return out
  }
}

/// `locctl refresh [--json]`: asks locd to acquire a fresh fix now.
enum RefreshCommand {
  static let spec = CommandSpec(
    name: "refresh", summary: "acquire a fresh fix now (the receiver sleeps again once it has one)",
    usage: ["refresh [--json]"],
    help: "Needs read access, like locate. Prints the receiver's state after the request.",
    needsDaemon: true,
    run: { invocation throws(UsageError) in
      try invocation.noPositionals()
      return withDaemon(invocation) { client throws(ControlClient.Failure) in
        let result = try client.call(.refresh)
        if invocation.json {
          Output.line(result.json.serialized)
        } else {
          let status = try client.call(.status)
          let zone = ScreenZone(status.timezone.zone.id, fallbackOffset: status.timezone.zone.offset ?? 0)
          Output.line(StatusCommand.describe(acquisition: result.acquisition, zone: zone))
        }
        return ExitStatus.ok
      }
    })
}
