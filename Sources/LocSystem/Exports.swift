// LocClient is the bottom of the shell: the client of locd's socket and the syscall wrappers
// it needs (descriptors, Errno, connecting, polling, a detached thread), which the daemon's
// shell uses too (decision 0038). Re-exported, so every file of LocSystem and every program
// that imports LocSystem names them as before.
@_exported import LocClient
// LocHost (files, accounts, clocks, the process, the zone data: what locctl shares with the
// daemon, without libsystemd) likewise.
@_exported import LocHost
