/// Keeps the last of several fixes with the same time: gpsd sends a `TPV` after each
/// sentence of a receiver cycle, each knowing a little more (position after the RMC,
/// altitude after the GGA, DOPs after the GSA), all with the cycle's time. The engine takes
/// only the first fix of each time, so a gpsd source passes its fixes through this: a fix
/// leaves when one with another time arrives, or at `flush` (the stream paused or ended).
public struct FixCoalescer: Sendable {
  private var pending: Fix?

  /// Nothing pending.
  public init() {}

  /// The fix held back, if any.
  public var held: Fix? { pending }

  /// Adds a fix; emits the one held before if its time differs.
  public mutating func add(_ fix: Fix, _ emit: (Fix) -> Void) {
    if let held = pending, held.time != fix.time { emit(held) }
    pending = fix
  }

  /// Emits the fix held back, if any.
  public mutating func flush(_ emit: (Fix) -> Void) {
    if let held = pending { emit(held) }
    pending = nil
  }
}
