import LocCore

/// Reading property maps (`a{sv}`) and object trees (ObjectManager's `a{oa{sa{sv}}}`) of
/// the kinds BlueZ sends, and writing the one dictionary locd sends it (SetDiscoveryFilter).
/// Values of a type other than the one expected are skipped and counted by the caller.
extension BusMessage {
  /// A property value as far as locd reads it.
  enum PropertyValue: Equatable {
    case string(String)
    case objectPath(String)
    case bool(Bool)
    case int16(Int16)
    /// `y` (NetworkManager's AccessPoint Strength).
    case byte(UInt8)
    /// `u`.
    case uint32(UInt32)
    /// `q` (wpa_supplicant's BSS Frequency).
    case uint16(UInt16)
    /// `i` (NetworkManager's AccessPoint LastSeen).
    case int32(Int32)
    /// `d` (iio-sensor-proxy's CompassHeading).
    case double(Double)
    /// `ay` of at most `byteStringLimit` bytes (an SSID, 32 at most); longer ones are `other`.
    case bytes([UInt8])
    /// `a{qv}` whose values are `ay` (org.bluez.Device1.ManufacturerData); `skipped` counts
    /// the entries left out: a value of another type, past the entry limit, over the byte
    /// limit.
    case manufacturerData([BlueZDeviceTable.ManufacturerData], skipped: Int)
    /// `a{uv}` whose values are `s` (ModemManager's Modem.Location Location: source bit →
    /// value; the NMEA and 3GPP values are strings); `skipped` counts the entries left out:
    /// a value of another type (GPS raw's `a{sv}`), past the entry limit, over the length limit.
    case locations([UInt32: String], skipped: Int)
    /// `a(su)` (ModemManager's Modem Ports: each port's name and MMModemPortType), at most
    /// `listLimit` entries.
    case ports([String: UInt32])
    /// `as` (ModemManager's AssistanceDataServers), at most `listLimit` strings.
    case strings([String])
    /// A type locd does not read here (skipped).
    case other(String)
  }

  /// Most entries read of one ManufacturerData (a device sends one or two), and most bytes of
  /// one (an extended advertisement carries at most 1650 bytes of data in all).
  static let manufacturerEntryLimit = 16
  static let manufacturerBytesLimit = 1650

  /// The longest `ay` read as a property value.
  static let byteStringLimit = 256
  /// Most entries of an `a(su)` or `as` value kept (a modem has a handful of ports, a few
  /// assistance servers); more make the value `other`.
  static let listLimit = 64

  /// Reads one `v`.
  func readPropertyValue() throws(Errno) -> PropertyValue {
    let contents = try variantContents()
    let value: PropertyValue
    switch contents {
    case "s", "o", "b", "n", "y", "u", "i", "q", "d", "ay":
      try enter(Code.variant, contents)
      switch contents {
      case "s": value = .string(try readText())
      case "o": value = .objectPath(try readText(Code.objectPath))
      case "b": value = .bool(try readBool())
      case "y": value = .byte(try readByte())
      case "u": value = .uint32(try readUInt32())
      case "q": value = .uint16(try readUInt16())
      case "i": value = .int32(try readInt32())
      case "d": value = .double(try readDouble())
      case "ay":
        value = try readByteArray { raw in
          raw.count <= Self.byteStringLimit ? .bytes(Array(raw)) : .other("ay")
        }
      default: value = .int16(try readInt16())
      }
      try exit()
    case "a{uv}":
      try enter(Code.variant, contents)
      let (entries, skipped) = try readLocations()
      value = .locations(entries, skipped: skipped)
      try exit()
    case "a{qv}":
      try enter(Code.variant, contents)
      let (entries, skipped) = try readManufacturerData()
      value = .manufacturerData(entries, skipped: skipped)
      try exit()
    case "as":
      try enter(Code.variant, contents)
      let strings = try readStrings()
      value = strings.count <= Self.listLimit ? .strings(strings) : .other(contents)
      try exit()
    case "a(su)":
      try enter(Code.variant, contents)
      var ports: [String: UInt32] = [:]
      var count = 0
      try enter(Code.array, "(su)")
      while try enter(Code.structure, "su", "enter (su)") {
        let name = try readText()
        let type = try readUInt32()
        count += 1
        if count <= Self.listLimit { ports[name] = type }
        try exit()
      }
      try exit()
      value = count <= Self.listLimit ? .ports(ports) : .other(contents)
      try exit()
    default:
      try skip("v")
      value = .other(contents)
    }
    return value
  }

  /// Reads `a{qv}`, each value `ay`; other values, entries past the limit and byte strings
  /// over it are skipped, and how many is returned with the entries.
  private func readManufacturerData() throws(Errno) -> ([BlueZDeviceTable.ManufacturerData], Int) {
    var entries: [BlueZDeviceTable.ManufacturerData] = []
    var skipped = 0
    try enter(Code.array, "{qv}")
    while try enter(Code.dictEntry, "qv", "enter {qv}") {
      let company = try readUInt16()
      if try variantContents() == "ay" && entries.count < Self.manufacturerEntryLimit {
        try enter(Code.variant, "ay")
        let bytes = try readByteArray { $0.count <= Self.manufacturerBytesLimit ? Array($0) : nil }
        if let bytes {
          entries.append(BlueZDeviceTable.ManufacturerData(company: company, bytes: bytes))
        } else {
          skipped += 1
        }
        try exit()
      } else {
        skipped += 1
        try skip("v")
      }
      try exit()
    }
    try exit()
    return (entries, skipped)
  }

  /// Most entries read of one Location (ModemManager defines 7 source bits), and the longest
  /// string value read (a trace of every NMEA sentence of an epoch, a few kilobytes at most).
  static let locationEntryLimit = 16
  static let locationTextLimit = 65_536

  /// Reads `a{uv}` (Modem.Location's Location, GetLocation's reply), keeping the string
  /// values; the others, entries past the limit and strings over it are skipped and counted.
  func readLocations() throws(Errno) -> ([UInt32: String], Int) {
    var entries: [UInt32: String] = [:]
    var skipped = 0
    try enter(Code.array, "{uv}")
    while try enter(Code.dictEntry, "uv", "enter {uv}") {
      let source = try readUInt32()
      if try variantContents() == "s" && entries.count < Self.locationEntryLimit {
        try enter(Code.variant, "s")
        let text = try readText()
        if text.utf8.count <= Self.locationTextLimit {
          entries[source] = text
        } else {
          skipped += 1
        }
        try exit()
      } else {
        skipped += 1
        try skip("v")
      }
      try exit()
    }
    try exit()
    return (entries, skipped)
  }

  /// Reads `a{sv}`.
  func readProperties() throws(Errno) -> [String: PropertyValue] {
    var properties: [String: PropertyValue] = [:]
    try forEachProperty { name throws(Errno) in properties[name] = try readPropertyValue() }
    return properties
  }

  /// Reads `a{sv}` entry by entry: `body` gets each name and must read its value
  /// (`readPropertyValue`) or skip it (`skipVariant`).
  func forEachProperty(_ body: (String) throws(Errno) -> Void) throws(Errno) {
    try enter(Code.array, "{sv}")
    while try enter(Code.dictEntry, "sv", "enter {sv}") {
      try body(try readText())
      try exit()
    }
    try exit()
  }

  /// Skips one `v`.
  func skipVariant() throws(Errno) {
    try skip("v")
  }

  /// Reads `ao`, at most `limit` paths (the rest skipped).
  func readObjectPaths(limit: Int) throws(Errno) -> [String] {
    var skipped = 0
    return try readObjectPaths(limit: limit, skipped: &skipped)
  }

  /// Reads `ao`, at most `limit` paths; the rest are read past, and counted in `skipped`.
  func readObjectPaths(limit: Int, skipped: inout Int) throws(Errno) -> [String] {
    var paths: [String] = []
    try enter(Code.array, "o")
    while let path = try readNextText("read o", Code.objectPath) {
      if paths.count < limit { paths.append(path) } else { skipped += 1 }
    }
    try exit()
    return paths
  }

  /// Reads a `v` holding `ao` (a Properties.Get reply), at most `limit` paths.
  func readVariantObjectPaths(limit: Int) throws(Errno) -> [String] {
    var skipped = 0
    return try readVariantObjectPaths(limit: limit, skipped: &skipped)
  }

  /// Reads a `v` holding `ao`, at most `limit` paths; the rest counted in `skipped`.
  func readVariantObjectPaths(limit: Int, skipped: inout Int) throws(Errno) -> [String] {
    try enter(Code.variant, "ao")
    let paths = try readObjectPaths(limit: limit, skipped: &skipped)
    try exit()
    return paths
  }

  /// Reads `as`.
  func readStrings() throws(Errno) -> [String] {
    var strings: [String] = []
    try enter(Code.array, "s")
    while let string = try readNextText("read s") { strings.append(string) }
    try exit()
    return strings
  }

  /// Reads `a{sa{sv}}` (interfaces and their properties), keeping only `interfaces`.
  func readInterfaces(_ interfaces: Set<String>) throws(Errno) -> [String: [String: PropertyValue]] {
    var result: [String: [String: PropertyValue]] = [:]
    try enter(Code.array, "{sa{sv}}")
    while try enter(Code.dictEntry, "sa{sv}", "enter {sa{sv}}") {
      let name = try readText()
      if interfaces.contains(name) {
        result[name] = try readProperties()
      } else {
        try skip("a{sv}")
      }
      try exit()
    }
    try exit()
    return result
  }

  /// Reads GetManagedObjects' `a{oa{sa{sv}}}`, keeping only `interfaces`; `each` gets every
  /// object path with what it has of them.
  func readManagedObjects(
    _ interfaces: Set<String>, _ each: (String, [String: [String: PropertyValue]]) -> Void
  ) throws(Errno) {
    try enter(Code.array, "{oa{sa{sv}}}")
    while try enter(Code.dictEntry, "oa{sa{sv}}", "enter {oa{sa{sv}}}") {
      let path = try readText(Code.objectPath)
      let found = try readInterfaces(interfaces)
      try exit()
      each(path, found)
    }
    try exit()
  }
}
