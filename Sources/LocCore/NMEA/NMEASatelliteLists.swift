extension NMEASentence {
  /// The used satellite ids of one GSA (at most 12), stored inline: parsing allocates nothing.
  /// Three groups of four rather than one `SIMD16`: a `SIMD16<UInt16>` is aligned to 16 bytes,
  /// which padded every sentence to 16 (see `GSA`).
  public struct SatelliteIDs: Hashable, Sendable, RandomAccessCollection {
    /// GSA has twelve id fields.
    public static let capacity = 12
    private var first = SIMD4<UInt16>()
    private var second = SIMD4<UInt16>()
    private var third = SIMD4<UInt16>()
    private var stored: UInt8 = 0

    /// No ids.
    public init() {}

    /// These ids (up to `capacity`, each 1...65535; others are left out).
    public init(_ list: [Int]) {
      for id in list { append(id) }
    }

    /// Adds `id` when there is room and it fits.
    mutating func append(_ id: Int) {
      guard Int(stored) < SatelliteIDs.capacity, id > 0, id <= Int(UInt16.max) else { return }
      let i = Int(stored)
      switch i {
      case 0..<4: first[i] = UInt16(id)
      case 4..<8: second[i - 4] = UInt16(id)
      default: third[i - 8] = UInt16(id)
      }
      stored += 1
    }

    /// 0.
    public var startIndex: Int { 0 }
    /// How many ids there are.
    public var endIndex: Int { Int(stored) }
    /// The id at `position`.
    public subscript(position: Int) -> Int {
      switch position {
      case 0..<4: Int(first[position])
      case 4..<8: Int(second[position - 4])
      default: Int(third[position - 8])
      }
    }
  }

  /// The satellite blocks of one GSV part (at most four, as NMEA 0183 allows), stored inline
  /// and small (every sentence is as large as the largest type's fields): ids as 16-bit
  /// numbers, elevation, azimuth and SNR in tenths in 16 bits. Parsing allocates nothing.
  /// GSV sends whole degrees and dB-Hz; a value with more decimals is kept to the tenth, and
  /// one outside its range (elevation -90...90°, azimuth 0...360°, SNR 0...99.9 dB-Hz) is
  /// missing.
  public struct SatelliteBlocks: Hashable, Sendable, RandomAccessCollection {
    /// NMEA 0183 puts at most four satellites in one GSV sentence; more are left out.
    public static let capacity = 4
    /// What a missing value is stored as.
    private static let missing = Int16.min
    private var ids = SIMD4<UInt16>()
    private var elevations = SIMD4<Int16>(repeating: missing)
    private var azimuths = SIMD4<Int16>(repeating: missing)
    private var snrs = SIMD4<Int16>(repeating: missing)
    private var stored: UInt8 = 0

    /// No blocks.
    public init() {}

    /// These blocks (up to `capacity`).
    public init(_ list: [SatelliteBlock]) {
      for block in list { append(block) }
    }

    /// `v` in tenths, or `missing` when absent or outside `range`.
    private static func tenths(_ v: Double?, _ range: ClosedRange<Double>) -> Int16 {
      guard let v, range.contains(v) else { return missing }
      return Int16((v * 10).rounded())
    }

    /// Adds `block` when there is room and its id fits.
    mutating func append(_ block: SatelliteBlock) {
      guard Int(stored) < SatelliteBlocks.capacity, block.id > 0, block.id <= Int(UInt16.max) else { return }
      let i = Int(stored)
      ids[i] = UInt16(block.id)
      elevations[i] = SatelliteBlocks.tenths(block.elevation, -90...90)
      azimuths[i] = SatelliteBlocks.tenths(block.azimuth, 0...360)
      snrs[i] = SatelliteBlocks.tenths(block.snr, 0...99.9)
      stored += 1
    }

    /// 0.
    public var startIndex: Int { 0 }
    /// How many blocks there are.
    public var endIndex: Int { Int(stored) }
    /// The block at `position`.
    public subscript(position: Int) -> SatelliteBlock {
      func value(_ v: Int16) -> Double? { v == SatelliteBlocks.missing ? nil : Double(v) / 10 }
      return SatelliteBlock(
        id: Int(ids[position]), elevation: value(elevations[position]), azimuth: value(azimuths[position]),
        snr: value(snrs[position]))
    }
  }
}
