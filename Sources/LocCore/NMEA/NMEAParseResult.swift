/// What `NMEASentence.parse` made of one line.
public enum NMEAParseResult: Hashable, Sendable {
  /// A checked and decoded sentence.
  case sentence(NMEASentence)
  /// The `*hh` checksum is wrong, or missing on a standard sentence: the sentence is dropped.
  case badChecksum
  /// A proprietary sentence (`$P...`): skipped, not an error.
  case proprietary
  /// A well-formed sentence of a type locd does not decode (TXT, GBS, HDT, AIS `!` ...).
  case unsupported
  /// The address or a field is malformed or out of range: the sentence is dropped.
  case malformed(NMEAFieldError)
}
