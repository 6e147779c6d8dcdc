extension NMEASentence {
  /// The used satellite ids of one GSA (at most 12), stored inline: parsing allocates nothing.
  public struct SatelliteIDs: Hashable, Sendable, RandomAccessCollection {
    /// GSA has twelve id fields.
    public static let capacity = 12
    private var ids = SIMD16<UInt16>()
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
      ids[Int(stored)] = UInt16(id)
      stored += 1
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { Int(stored) }
    public subscript(position: Int) -> Int { Int(ids[position]) }
  }

  /// The satellite blocks of one GSV part (at most four, as NMEA 0183 allows), stored inline:
  /// parsing allocates nothing.
  public struct SatelliteBlocks: Hashable, Sendable, RandomAccessCollection {
    /// NMEA 0183 puts at most four satellites in one GSV sentence; more are left out.
    public static let capacity = 4
    /// What a missing value is stored as (never a value a field holds).
    private static let missing = -Double.infinity
    private var ids = SIMD4<UInt16>()
    private var elevations = SIMD4<Double>(repeating: missing)
    private var azimuths = SIMD4<Double>(repeating: missing)
    private var snrs = SIMD4<Double>(repeating: missing)
    private var stored: UInt8 = 0

    /// No blocks.
    public init() {}

    /// These blocks (up to `capacity`).
    public init(_ list: [SatelliteBlock]) {
      for block in list { append(block) }
    }

    /// Adds `block` when there is room and its id fits.
    mutating func append(_ block: SatelliteBlock) {
      guard Int(stored) < SatelliteBlocks.capacity, block.id > 0, block.id <= Int(UInt16.max) else { return }
      let i = Int(stored)
      ids[i] = UInt16(block.id)
      elevations[i] = block.elevation ?? SatelliteBlocks.missing
      azimuths[i] = block.azimuth ?? SatelliteBlocks.missing
      snrs[i] = block.snr ?? SatelliteBlocks.missing
      stored += 1
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { Int(stored) }
    public subscript(position: Int) -> SatelliteBlock {
      func value(_ v: Double) -> Double? { v == SatelliteBlocks.missing ? nil : v }
      return SatelliteBlock(
        id: Int(ids[position]), elevation: value(elevations[position]), azimuth: value(azimuths[position]),
        snr: value(snrs[position]))
    }
  }
}
