/// What `[Time] ChronySocket=` must be before a sample goes there (decision 0060): reached
/// without following a symbolic link anywhere on its path, a socket, with one name, owned
/// by root or by chrony's user. A link, or a second name, lets whoever may write the
/// directory it sits in send locd's samples to a socket of their choosing (chronyd's own,
/// in a directory they cannot enter); a socket another user owns is that user's listener,
/// not chronyd's.
public enum ChronySocketRule {
  /// What the shell found at one component of the path.
  public enum Found: Sendable, Hashable {
    /// A socket with `owner` and `links` names.
    case socket(owner: UInt32, links: Int)
    /// A symbolic link.
    case symbolicLink
    /// Something else, in words ("a regular file", "a directory").
    case other(String)
  }

  /// Why the socket is refused, for status and the log.
  public enum Problem: Sendable, Hashable, CustomStringConvertible {
    /// `path` (the whole path, or a directory on it) is a symbolic link.
    case symbolicLink(path: String)
    /// Not a socket but `what` ("a regular file").
    case notSocket(what: String)
    /// A socket `uid` owns: neither root nor chrony's user.
    case owner(uid: UInt32)
    /// A socket with `names` names: a hard link may have been made to it.
    case hardLinked(names: Int)

    /// The name on the wire: `symbolic-link`, `not-a-socket`, `wrong-owner`, `hard-linked`.
    public var name: String {
      switch self {
      case .symbolicLink: return "symbolic-link"
      case .notSocket: return "not-a-socket"
      case .owner: return "wrong-owner"
      case .hardLinked: return "hard-linked"
      }
    }

    /// In words, after the socket's path: "is reached through a symbolic link (…)".
    public var description: String {
      switch self {
      case .symbolicLink(let path):
        return "is reached through a symbolic link (\(path)); name it by a path without links"
      case .notSocket(let what): return "is \(what), not a socket"
      case .owner(let uid): return "belongs to uid \(uid), neither root nor chrony's user"
      case .hardLinked(let names):
        return "has \(names) names (a hard link): only chronyd's own socket is used"
      }
    }
  }

  /// The problem with the last component of the path, found as `found`, when `owners` (root
  /// and chrony's user) may own it; nil: it may be used. `path` names it in a link's problem.
  public static func check(_ found: Found, path: String, owners: Set<UInt32>) -> Problem? {
    switch found {
    case .symbolicLink: return .symbolicLink(path: path)
    case .other(let what): return .notSocket(what: what)
    case .socket(let owner, let links):
      if !owners.contains(owner) { return .owner(uid: owner) }
      if links != 1 { return .hardLinked(names: links) }
      return nil
    }
  }
}
