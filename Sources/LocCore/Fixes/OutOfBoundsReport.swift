/// The values from outside that lay out of bounds since start (`status`'s `outOfBounds`):
/// how many were refused and raised, and the latest of each kind with where it came from.
public struct OutOfBoundsReport: Sendable, Hashable {
  /// One kind of value out of bounds from one source: the latest such value, and how often.
  public struct Entry: Sendable, Hashable {
    /// Where it came from: a source URI, the service's URL, `static:PATH`, `manual`.
    public var source: String
    /// What kind of source that is.
    public var provenance: PositionProvenance
    /// The latest value, its bound and what was done.
    public var value: OutOfBounds
    /// How many values of this field from this source were out of bounds and so treated.
    public var count: Int
    /// When the latest came.
    public var last: Instant

    /// An entry.
    public init(source: String, provenance: PositionProvenance, value: OutOfBounds, count: Int, last: Instant)
    {
      self.source = source
      self.provenance = provenance
      self.value = value
      self.count = count
      self.last = last
    }
  }

  /// Values refused since start.
  public var refused: Int
  /// Accuracies raised to their floor since start.
  public var raised: Int
  /// The latest entries, oldest first, at most `OutOfBoundsReport.kept`: one per source, field
  /// and action, a repeat updating its entry.
  public var recent: [Entry]

  /// How many entries are kept: a source that sends the same nonsense every second keeps
  /// one, and eight sources of nonsense at once is far more than a machine has.
  public static let kept = 8

  /// A report.
  public init(refused: Int = 0, raised: Int = 0, recent: [Entry] = []) {
    self.refused = refused
    self.raised = raised
    self.recent = recent
  }

  /// Whether nothing was out of bounds yet (`status` leaves the member out then).
  public var isEmpty: Bool { refused == 0 && raised == 0 }

  /// Notes `value` from `source` (of kind `provenance`) at `now`.
  public mutating func note(
    _ value: OutOfBounds, from source: String, _ provenance: PositionProvenance, at now: Instant
  ) {
    switch value.action {
    case .refused: refused += 1
    case .raised: raised += 1
    }
    if let i = recent.firstIndex(where: {
      $0.source == source && $0.value.field == value.field && $0.value.action == value.action
    }) {
      var entry = recent.remove(at: i)
      entry.value = value
      entry.count += 1
      entry.last = now
      entry.provenance = provenance
      recent.append(entry)
      return
    }
    recent.append(Entry(source: source, provenance: provenance, value: value, count: 1, last: now))
    if recent.count > Self.kept { recent.removeFirst(recent.count - Self.kept) }
  }
}
