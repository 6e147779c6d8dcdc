import CSystemd

#if canImport(Glibc)
  import Glibc
#endif

/// The systemd journal's native protocol (sd_journal_sendv(3)).
public enum Journal {
  /// Sends one entry made of `fields` ("MESSAGE=...", "PRIORITY=6", ...); what the journal
  /// answers is not checked: there is nowhere else to log that logging failed.
  public static func send(_ fields: [String]) {
    let cstrings = fields.map { strdup($0)! }
    defer { cstrings.forEach { free($0) } }
    var iov = cstrings.map { iovec(iov_base: UnsafeMutableRawPointer($0), iov_len: strlen($0)) }
    _ = sd_journal_sendv(&iov, Int32(iov.count))
  }
}
