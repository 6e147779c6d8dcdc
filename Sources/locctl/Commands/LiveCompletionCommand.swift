import LocCore
import LocHost
import LocProtocol

/// `locctl __complete KIND [WORDS...]` (hidden): the words only the running system knows,
/// one per line, for the shell completions to offer (`Completion.live`). Quiet and quick
/// whatever happens: no daemon, no access or no tzdata is an empty list and exit 0, and locd
/// gets one second to answer, so a completion never hangs a prompt.
enum LiveCompletionCommand {
  static let spec = CommandSpec(
    name: "__complete", summary: "the live words of the shell completions",
    usage: ["__complete timer-names|app-ids|zone-names [WORDS...]"], arguments: [.none],
    help: "Used by the completion scripts; prints candidates, one per line.",
    needsDaemon: false, hidden: true, run: run)

  static func run(_ invocation: Invocation) throws(UsageError) -> Int32 {
    guard let first = invocation.positionals.first, let kind = LiveWords(rawValue: first) else {
      throw UsageError("expected one of " + LiveWords.allCases.map(\.rawValue).joined(separator: ", "))
    }
    let before = Array(invocation.positionals.dropFirst())
    for word in words(kind, after: before, socket: invocation.socketPath) { Output.line(word) }
    Output.flush()
    return ExitStatus.ok
  }

  /// The candidates of `kind`, given the positional words typed before the one completed.
  static func words(_ kind: LiveWords, after before: [String], socket: String) -> [String] {
    switch kind {
    case .timerNames:
      // `timers add NAME` names a new timer: nothing to offer.
      guard before.first != "add" else { return [] }
      return ask(socket) { client throws(ControlClient.Failure) in
        try client.call(.listTimers).timers.map(\.name)
      }
    case .appIDs:
      return ask(socket) { client throws(ControlClient.Failure) in
        try client.call(.listApps()).apps.map(\.app)
      }
    case .zoneNames:
      return zoneNames(in: ZoneDatabase().directory)
    }
  }

  /// What `body` gets from locd within a second, sorted and without repeats; none on failure.
  static func ask(_ socket: String, _ body: (ControlClient) throws(ControlClient.Failure) -> [String])
    -> [String]
  {
    guard let client = try? ControlClient(path: socket, client: "locctl", timeout: .seconds(1)),
      let words = try? body(client)
    else { return [] }
    return Array(Set(words)).sorted()
  }

  /// The zones and links of DIR/tzdata.zi (`Z Europe/Oslo ...`, `L Europe/Oslo Arctic/Longyearbyen`),
  /// sorted; none without the file.
  static func zoneNames(in directory: String) -> [String] {
    guard let bytes = try? FileIO.read(path: directory + "/tzdata.zi", limit: 4 << 20) else { return [] }
    var names = Set<String>()
    for line in bytes.split(separator: UInt8(ascii: "\n")) {
      let fields = line.split(separator: UInt8(ascii: " "))
      guard let tag = fields.first, tag.count == 1 else { continue }
      switch (tag.first, fields.count) {
      case (UInt8(ascii: "Z"), 2...): names.insert(String(decoding: fields[1], as: UTF8.self))
      case (UInt8(ascii: "L"), 3...): names.insert(String(decoding: fields[2], as: UTF8.self))
      default: continue
      }
    }
    return names.sorted()
  }
}
