// LocHost sits on LocClient's syscall wrappers (descriptors, Errno, FileStatus) and is read
// with them: re-exported, so its files and its users name them as before.
@_exported import LocClient
