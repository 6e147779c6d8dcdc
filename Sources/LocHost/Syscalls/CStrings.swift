#if canImport(Glibc)
  import Glibc
#endif

/// C strings made from Swift strings for one call that takes a NULL-terminated `char **`
/// (execve(2)'s argv and envp, the names of a D-Bus PropertiesChanged in Bus/): copies
/// (strdup(3)) that live as long as this value and are freed (free(3)) with it.
public final class CStrings {
  /// The copies, then a nil.
  public let pointers: [UnsafeMutablePointer<CChar>?]

  /// Copies of `strings`.
  public init(_ strings: [String]) { pointers = strings.map { strdup($0) } + [nil] }

  deinit { pointers.forEach { free($0) } }
}

extension CStrings {
  /// Whether the C string `c` is `string`, compared in place (strcmp(3)): no Swift string is
  /// made of `c`.
  public static func equal(_ c: UnsafePointer<CChar>, _ string: String) -> Bool {
    string.withCString { strcmp($0, c) == 0 }
  }
}
