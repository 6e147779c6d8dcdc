import LocCore

/// The answer to `locate` (docs/PROTOCOL.md, "locate"): the position in full precision,
/// where it comes from, and whether the accuracy asked for was met.
public struct LocateView: WireCodable {
  /// The position, full precision, with tier, age, reason and remedy.
  public var position: ResolvedPositionView
  /// Where it comes from (`fresh`: a fix received within `FreshFor=`).
  public var provenance: LocateAnswer.Provenance
  /// Whether it is a fresh fix at least `wanted` accurate.
  public var accuracyMet: Bool
  /// The accuracy asked for.
  public var wanted: Meters
  /// How long the request waited, to the millisecond.
  public var waited: Duration
  /// Why the answer is not what was asked, if it is not.
  public var note: String?

  /// The wire form of `a`.
  public init(_ a: LocateAnswer) {
    position = ResolvedPositionView(a.position, rounded: false)
    provenance = a.provenance
    accuracyMet = a.accuracyMet
    wanted = a.wanted
    waited = WireFormat.seconds(a.waited, 3)
    note = a.note
  }

  public init(json: JSON, path: WirePath) throws(WireDecodingError) {
    let o = try WireObject(json, path: path)
    position = try o.decode("position")
    provenance = try o.word("provenance")
    accuracyMet = try o.bool("accuracyMet")
    wanted = try o.meters("wanted")
    waited = try o.seconds("waited")
    note = try o.optionalString("note")
  }

  public var json: JSON {
    .object([
      "position": position.json, "provenance": .string(provenance.rawValue),
      "accuracyMet": .bool(accuracyMet),
      "wanted": .number(wanted.value), "waited": .number(waited.seconds), "note": .optional(note),
    ])
  }
}
