/// Values out of bounds (`PositionBounds`, `FixPlausibility`): each noted for `status`
/// (`outOfBounds`), the first of its kind from a source logged (a receiver that sends the
/// same nonsense every second is one line, not one a second; the rest at debug).
extension Engine {
  mutating func noteOutOfBounds(
    _ values: [OutOfBounds], from source: String, _ provenance: PositionProvenance, at now: Instant,
    into effects: inout [Effect]
  ) {
    for value in values {
      let first = positions.noteOutOfBounds(value, from: source, provenance, at: now)
      effects.append(.log(first ? .notice : .debug, "\(provenance.rawValue) value from \(source): \(value)"))
    }
  }
}
