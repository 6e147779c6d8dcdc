/// Every subcommand of locctl, in the order `--help` lists them. Add one line per command.
let allCommands: [any LocctlCommand.Type] = [
  StatusCommand.self,
  WatchCommand.self,
  LocateCommand.self,
  RefreshCommand.self,
  SetLocationCommand.self,
  ClearLocationCommand.self,
  ReloadCommand.self,
  SunCommand.self,
  TzCommand.self,
  TimersCommand.self,
  DecodeCommand.self,
  BeaconsCommand.self,
  AgentCommand.self,
  AppCommand.self,
  AppsCommand.self,
]
