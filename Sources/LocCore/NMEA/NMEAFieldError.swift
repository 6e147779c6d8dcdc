/// Why one field of an NMEA sentence was rejected; the sentence is dropped and counted.
public struct NMEAFieldError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What is wrong with the field.
  public enum Reason: Hashable, Sendable {
    /// Not a number, or not in the field's format (e.g. `12a4.5`, a time without six digits).
    case malformed
    /// A number outside its range (latitude over 90, minutes of 60 or more, month 13).
    case outOfRange
    /// A field the sentence cannot do without is empty (a valid fix with no latitude).
    case missing
  }

  /// Field number, 1 for the first field after the address (`$GPGGA,<1>,<2>,...`).
  public var field: Int
  /// What is wrong.
  public var reason: Reason

  /// An error for field `field`.
  @inlinable public init(field: Int, reason: Reason) {
    self.field = field
    self.reason = reason
  }

  public var description: String { "field \(field): \(reason)" }
}
