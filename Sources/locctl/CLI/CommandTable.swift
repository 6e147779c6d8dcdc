/// Every command of locctl, in the order the help lists them: one `CommandSpec` each, kept
/// beside the command's code. The argument parser, `locctl help`, locctl(1)'s synopses and the
/// bash, zsh and fish completions (`locctl completion SHELL`) are all made from this table;
/// a new command is one more entry.
enum CommandTable {
  /// The commands.
  static let all: [CommandSpec] = [
    StatusCommand.spec, WatchCommand.spec, WaitCommand.spec, LocateCommand.spec, RefreshCommand.spec,
    SetLocationCommand.spec, ClearLocationCommand.spec, ReloadCommand.spec, TimersCommand.spec,
    SkyCommand.spec, HeadingCommand.spec, SunCommand.spec, ModeCommand.spec, TzCommand.spec,
    DecodeCommand.spec,
    BeaconsCommand.spec,
    AgentCommand.spec,
    AppsCommand.spec, AppCommand.spec, RegionsCommand.spec,
    HelpCommand.spec, VersionCommand.spec, CompletionCommand.spec, LiveCompletionCommand.spec,
  ]
}
