import LocCore
import LocHost

/// `locctl help [COMMAND]`.
enum HelpCommand {
  static let spec = CommandSpec(
    name: "help", summary: "show the help of a command, or the list of commands",
    usage: ["help [COMMAND]"], arguments: [.commandNames],
    help: "The same as 'locctl COMMAND --help'.", needsDaemon: false,
    run: { invocation throws(UsageError) in
      guard let word = invocation.positionals.first else {
        Output.write(HelpText.overview(CommandTable.all))
        return ExitStatus.ok
      }
      guard invocation.positionals.count == 1 else { throw UsageError("expected one command name") }
      guard let command = CommandTable.all.first(where: { $0.name == word }) else {
        let names = CommandTable.all.filter { !$0.hidden }.map(\.name)
        throw UsageError("unknown command '\(word)'" + Suggestion.hint(for: word, among: names))
      }
      Output.write(HelpText.command(command))
      return ExitStatus.ok
    })
}

/// `locctl version` (also `locctl --version`).
enum VersionCommand {
  static let spec = CommandSpec(
    name: "version", summary: "print the versions: locctl, the protocol, the boundary data and tzdata",
    usage: ["version [--json]", "--version"],
    help: """
      locctl's version; the protocol version it speaks (it talks to any locd of the same major
      version); the timezone-boundary-builder release of the boundary file it finds and the tzdata
      release its zone names come from; and the system's tzdata release (tzdata.zi), which the
      offsets and abbreviations come from. 'locd --version' prints the same for the daemon.
      """,
    needsDaemon: false,
    run: { invocation throws(UsageError) in
      try invocation.noPositionals()
      let report = VersionReport.current()
      if invocation.json {
        Output.line(report.json.serialized)
      } else {
        Output.write(report.text(program: "locctl"))
      }
      return ExitStatus.ok
    })
}

/// `locctl completion bash|zsh|fish`.
enum CompletionCommand {
  static let spec = CommandSpec(
    name: "completion", summary: "print the shell completion script for bash, zsh or fish",
    usage: ["completion bash|zsh|fish"], arguments: [.words(["bash", "zsh", "fish"])],
    help: """
      The scripts are made from locctl's command table; 'make install' installs them (bash:
      share/bash-completion/completions/locctl, zsh: share/zsh/site-functions/_locctl, fish:
      share/fish/vendor_completions.d/locctl.fish). To try one without installing:
        source <(locctl completion bash)
      """,
    examples: ["locctl completion bash > ~/.local/share/bash-completion/completions/locctl"],
    needsDaemon: false,
    run: { invocation throws(UsageError) in
      guard invocation.positionals.count == 1, let shell = invocation.positionals.first else {
        throw UsageError("expected one shell: bash, zsh or fish")
      }
      let table = CommandTable.all
      switch shell {
      case "bash": Output.write(ShellCompletion.bash(table))
      case "zsh": Output.write(ShellCompletion.zsh(table))
      case "fish": Output.write(ShellCompletion.fish(table))
      default:
        throw UsageError(
          "unknown shell '\(shell)'" + Suggestion.hint(for: shell, among: ["bash", "zsh", "fish"]))
      }
      return ExitStatus.ok
    })
}
