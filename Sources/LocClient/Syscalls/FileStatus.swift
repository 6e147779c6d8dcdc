#if canImport(Glibc)
  import Glibc
#endif

/// What stat(2), fstat(2) or lstat(2) said about a file, in the terms locd checks: its
/// kind, owner, permission bits and size, so no caller reads a `struct stat` or S_IF*.
public struct FileStatus: Sendable, Equatable {
  /// The file's type (the S_IFMT bits of st_mode, inode(7)).
  public enum Kind: Sendable, Equatable {
    case regular, directory, fifo, socket, characterDevice, blockDevice, symbolicLink
    /// A type inode(7) does not list: its S_IFMT bits.
    case other(UInt32)
  }

  /// st_mode: the type and permission bits.
  public var rawMode: UInt32
  /// The owner's uid (st_uid).
  public var owner: UInt32
  /// The size in bytes (st_size).
  public var size: Int
  /// The device the file is on (st_dev) and its inode there (st_ino).
  public var device: UInt64, inode: UInt64
  /// The number of names (hard links) the file has (st_nlink).
  public var linkCount: Int

  /// The values of `info`.
  package init(_ info: stat) {
    rawMode = UInt32(info.st_mode)
    owner = info.st_uid
    size = Int(info.st_size)
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
    linkCount = Int(info.st_nlink)
  }

  /// The permission bits (rawMode & 07777: set-id, sticky, user, group, other).
  public var permissions: UInt32 { rawMode & 0o7777 }

  /// The file's type.
  public var kind: Kind {
    switch rawMode & UInt32(S_IFMT) {
    case UInt32(S_IFREG): return .regular
    case UInt32(S_IFDIR): return .directory
    case UInt32(S_IFIFO): return .fifo
    case UInt32(S_IFSOCK): return .socket
    case UInt32(S_IFCHR): return .characterDevice
    case UInt32(S_IFBLK): return .blockDevice
    case UInt32(S_IFLNK): return .symbolicLink
    case let bits: return .other(bits)
    }
  }
}
