import LocCore

/// The `outOfBounds` member of `status` (since 1.10; present once a value from outside lay
/// beyond what its kind of source can give): how many values were refused and how many
/// accuracies raised to their floor since start, and the latest of each kind (source, field,
/// action). docs/SOURCES.md, "Bounds".
public struct OutOfBoundsStatusView: WireCodable {
  /// One kind of value out of bounds from one source.
  public struct Entry: WireCodable {
    /// Where it came from: a source URI, the service's URL, `static:PATH`, `manual (uid N)`.
    public var source: String
    /// What kind of source (the position's `provenance` words; open).
    public var provenance: OpenEnum<PositionProvenance>
    /// Which value (open: `latitude`, `longitude`, `altitude`, `accuracy`, `speed`, `course`,
    /// `geoid-separation`).
    public var field: OpenEnum<OutOfBounds.Field>
    /// The latest value as it came.
    public var value: Double
    /// The bound it crossed, in the field's unit.
    public var bound: Double
    /// What was done (open: `refused`, `raised`).
    public var action: OpenEnum<OutOfBounds.Action>
    /// How many values of this field from this source were so treated.
    public var count: Int
    /// When the latest came (ms).
    public var last: Instant

    /// The wire form of `e`.
    public init(_ e: OutOfBoundsReport.Entry) {
      source = e.source
      provenance = .known(e.provenance)
      field = .known(e.value.field)
      value = e.value.value
      bound = e.value.bound
      action = .known(e.value.action)
      count = e.count
      last = WireFormat.truncate(e.last, 3)
    }

    public init(json: JSON, path: WirePath) throws(WireDecodingError) {
      let o = try WireObject(json, path: path)
      source = try o.string("source")
      provenance = try o.open("provenance")
      field = try o.open("field")
      value = try o.number("value")
      bound = try o.number("bound")
      action = try o.open("action")
      count = try o.int("count")
      last = try o.instant("last")
    }

    public var json: JSON { writtenJSON }

    /// In words, as the log says it (`accuracy 1e-300 m is below 10 m: raised to it`), for a
    /// field and action this side knows; the words on the wire otherwise.
    public var words: String {
      if let f = field.known, let a = action.known {
        return OutOfBounds(f, value, bound: bound, a).description
      }
      return "\(field.word) \(OutOfBounds.number(value)) (bound \(OutOfBounds.number(bound))): \(action.word)"
    }
  }

  /// Values refused since start.
  public var refused: Int
  /// Accuracies raised to their floor since start.
  public var raised: Int
  /// The latest entries, oldest first (at most 8).
  public var recent: [Entry]

  /// The wire form of `r`.
  public init(_ r: OutOfBoundsReport) {
    refused = r.refused
    raised = r.raised
    recent = r.recent.map(Entry.init)
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    refused = try o.int("refused")
    raised = try o.int("raised")
    recent = try o.array("recent")
  }

  public var json: JSON { writtenJSON }
}

extension OutOfBoundsStatusView: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    s.member("refused", .int(refused))
    s.member("raised", .int(raised))
    s.key("recent")
    s.array(recent) { s, entry in entry.write(to: &s) }
    s.closeObject()
  }
}

extension OutOfBoundsStatusView.Entry: JSONWritable {
  public func write(to s: inout some JSONSink) {
    s.openObject()
    s.member("source", .string(source))
    s.member("provenance", .string(provenance.word))
    s.member("field", .string(field.word))
    s.member("value", .number(value))
    s.member("bound", .number(bound))
    s.member("action", .string(action.word))
    s.member("count", .int(count))
    s.member("last", WireFormat.time(last, 3))
    s.closeObject()
  }
}
