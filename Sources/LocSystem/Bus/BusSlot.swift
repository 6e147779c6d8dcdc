import CSystemd

/// One sd-bus slot (sd_bus_slot), holding its reference: a match, an exported object, a name
/// request or a disconnect watch stays installed while its slot lives, and goes when the slot
/// is released (sd_bus_slot_unref(3)).
final class BusSlot {
  private var raw: OpaquePointer?

  /// Takes over the reference an sd-bus call returned in its slot out-parameter.
  init(adopting raw: OpaquePointer?) { self.raw = raw }

  deinit { release() }

  /// Removes what the slot installed, now rather than when the slot is freed
  /// (sd_bus_slot_unref(3)).
  func release() {
    if let raw { sd_bus_slot_unref(raw) }
    raw = nil
  }
}
