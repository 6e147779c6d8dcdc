/// Walks the AD structures of Bluetooth LE advertising or scan response data (Core 5.4,
/// Vol 3, Part C, 11): each is a length byte, then that many bytes: an AD type and its value.
///
/// The walk is linear and bounded by the data: every step moves forward by at least one
/// byte, a zero length ends the data early (the spec allows this as padding), and a length
/// that runs past the end stops the walk as malformed. Nothing is copied or allocated.
public enum AdvertisingData {
  /// AD type 0xFF, Manufacturer Specific Data: a 16-bit company id (little-endian), then
  /// bytes the company defines (Assigned Numbers, 2.3).
  public static let manufacturerSpecificData: UInt8 = 0xFF

  /// How a walk ended.
  public enum Ending: Hashable, Sendable {
    /// At the end of the data, or at a zero length byte (early termination).
    case complete
    /// A structure's length ran past the end of the data; what came before was walked.
    case overrun
    /// `body` asked to stop.
    case stopped
  }

  /// Calls `body` with the AD type and value of each structure in `data`, in order, until it
  /// returns `false`.
  @inlinable @discardableResult
  public static func walk(
    _ data: UnsafeRawBufferPointer, _ body: (_ type: UInt8, _ value: UnsafeRawBufferPointer) -> Bool
  ) -> Ending {
    var i = 0
    let n = data.count
    while i < n {
      let length = Int(data[i])
      if length == 0 { return .complete }
      guard length <= n - i - 1 else { return .overrun }
      let type = data[i + 1]
      let value = UnsafeRawBufferPointer(rebasing: data[(i + 2)..<(i + 1 + length)])
      if !body(type, value) { return .stopped }
      i += 1 + length
    }
    return .complete
  }
}
