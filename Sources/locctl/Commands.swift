/// Every subcommand of locctl, in the order `--help` lists them. Add one line per command.
let allCommands: [any LocctlCommand.Type] = [
]
