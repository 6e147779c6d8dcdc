#if canImport(Glibc)
  import Glibc
#endif

// The one file of LocCore that imports the C library (decision 0034; `make lint` holds it):
// the functions of libm that the solar, geodesy and beacon code and LocProtocol's wire
// precision need, which Swift's standard library does not have (it has `squareRoot()` and
// `rounded(_:)`, used instead of sqrt, floor and ceil), and the byte search LineSplitter uses.
// Each is the C function itself, inlined into the caller (also into @inlinable code that
// other modules inline), so a call costs what a direct call to libm does.

/// libm for the modules of locd, which do not import the C library themselves. A namespace,
/// not top-level functions, so that code importing both LocCore and Glibc (the tests) sees
/// no two `sin`.
public enum Maths {
  /// sin(3), radians.
  @inlinable @inline(__always) public static func sin(_ x: Double) -> Double { Glibc.sin(x) }
  /// cos(3), radians.
  @inlinable @inline(__always) public static func cos(_ x: Double) -> Double { Glibc.cos(x) }
  /// asin(3), radians.
  @inlinable @inline(__always) public static func asin(_ x: Double) -> Double { Glibc.asin(x) }
  /// acos(3), radians.
  @inlinable @inline(__always) public static func acos(_ x: Double) -> Double { Glibc.acos(x) }
  /// atan2(3): the angle of the point (x, y), radians in [-pi, pi].
  @inlinable @inline(__always) public static func atan2(_ y: Double, _ x: Double) -> Double {
    Glibc.atan2(y, x)
  }
  /// tan(3), radians.
  @inlinable @inline(__always) public static func tan(_ x: Double) -> Double { Glibc.tan(x) }
  /// atan(3), radians.
  @inlinable @inline(__always) public static func atan(_ x: Double) -> Double { Glibc.atan(x) }
  /// pow(3).
  @inlinable @inline(__always) public static func pow(_ x: Double, _ y: Double) -> Double { Glibc.pow(x, y) }
  /// log10(3).
  @inlinable @inline(__always) public static func log10(_ x: Double) -> Double { Glibc.log10(x) }
}

/// The first byte equal to `byte` among the `count` bytes at `start` (memchr(3)), or nil.
@inlinable @inline(__always) func firstByte(_ byte: UInt8, from start: UnsafePointer<UInt8>, count: Int)
  -> UnsafePointer<UInt8>?
{
  guard let found = memchr(start, Int32(byte), count) else { return nil }
  return UnsafePointer(found.assumingMemoryBound(to: UInt8.self))
}

/// The index of the first `byte` in `bytes` (memchr(3)), or nil: a client looking for the end
/// of a 3 KB reply line spent more on the search, a byte at a time, than on reading it.
public func firstIndex(of byte: UInt8, in bytes: [UInt8]) -> Int? {
  bytes.withUnsafeBufferPointer { buffer in
    guard let base = buffer.baseAddress, let found = firstByte(byte, from: base, count: buffer.count) else {
      return nil
    }
    return found - base
  }
}
