import LocCore
import LocProtocol

/// What a position is called on screen, from its tier and provenance, without saying a word
/// twice ("cached cached") or calling the static file manual (issue 43, item 5): `fix gnss`,
/// `fix wifi`, `cached`, `manual`, `static file`.
enum PositionWords {
  /// The words, in order: the tier, then the provenance when it adds something.
  static func words(tier: PositionTier, provenance: OpenEnum<PositionProvenance>?) -> [String] {
    if provenance == .known(.staticFile) { return ["static file"] }
    guard let word = provenance?.word, word != tier.rawValue else { return [tier.rawValue] }
    return [tier.rawValue, word]
  }
}
