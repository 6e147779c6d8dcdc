import CSystemd
import LocCore

#if canImport(Glibc)
  import Glibc
#endif

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
    /// `a{qv}` whose values are `ay` (org.bluez.Device1.ManufacturerData).
    case manufacturerData([BlueZDeviceTable.ManufacturerData])
    /// A type locd does not read here (skipped).
    case other(String)
  }

  /// Most entries read of one ManufacturerData (a device sends one or two), and most bytes of
  /// one (an extended advertisement carries at most 1650 bytes of data in all).
  static let manufacturerEntryLimit = 16
  static let manufacturerBytesLimit = 1650

  /// The signature inside the variant the read position is at.
  private func variantContents() throws(Errno) -> String {
    var type: CChar = 0
    var contents: UnsafePointer<CChar>? = nil
    _ = try Syscall.systemd("sd_bus_message_peek_type", sd_bus_message_peek_type(raw, &type, &contents))
    guard type == Code.variant, let contents else { throw Errno(call: "expected a variant", code: EBADMSG) }
    return String(cString: contents)
  }

  private func enter(_ code: CChar, _ contents: String) throws(Errno) {
    _ = try Syscall.systemd(
      "sd_bus_message_enter_container \(contents)", sd_bus_message_enter_container(raw, code, contents))
  }

  private func exit() throws(Errno) {
    _ = try Syscall.systemd("sd_bus_message_exit_container", sd_bus_message_exit_container(raw))
  }

  /// Reads one `v`.
  func readPropertyValue() throws(Errno) -> PropertyValue {
    let contents = try variantContents()
    let value: PropertyValue
    switch contents {
    case "s", "o", "b", "n":
      try enter(Code.variant, contents)
      switch contents {
      case "s": value = .string(try readText())
      case "o": value = .objectPath(try readText(Code.objectPath))
      case "b": value = .bool(try readBool())
      default:
        var n: Int16 = 0
        _ = try Syscall.systemd(
          "sd_bus_message_read_basic", sd_bus_message_read_basic(raw, CChar(UInt8(ascii: "n")), &n))
        value = .int16(n)
      }
      try exit()
    case "a{qv}":
      try enter(Code.variant, contents)
      value = .manufacturerData(try readManufacturerData())
      try exit()
    default:
      _ = try Syscall.systemd("sd_bus_message_skip", sd_bus_message_skip(raw, "v"))
      value = .other(contents)
    }
    return value
  }

  /// Reads `a{qv}`, each value `ay`; other values, entries past the limit and byte strings
  /// over it are skipped.
  private func readManufacturerData() throws(Errno) -> [BlueZDeviceTable.ManufacturerData] {
    var entries: [BlueZDeviceTable.ManufacturerData] = []
    try enter(Code.array, "{qv}")
    while try Syscall.systemd("enter {qv}", sd_bus_message_enter_container(raw, Code.dictEntry, "qv")) > 0 {
      var company: UInt16 = 0
      _ = try Syscall.systemd(
        "sd_bus_message_read_basic", sd_bus_message_read_basic(raw, CChar(UInt8(ascii: "q")), &company))
      if try variantContents() == "ay" && entries.count < Self.manufacturerEntryLimit {
        try enter(Code.variant, "ay")
        var pointer: UnsafeRawPointer? = nil
        var size = 0
        _ = try Syscall.systemd(
          "sd_bus_message_read_array",
          sd_bus_message_read_array(raw, CChar(UInt8(ascii: "y")), &pointer, &size))
        if size <= Self.manufacturerBytesLimit {
          let bytes = pointer.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) } ?? []
          entries.append(BlueZDeviceTable.ManufacturerData(company: company, bytes: bytes))
        }
        try exit()
      } else {
        _ = try Syscall.systemd("sd_bus_message_skip", sd_bus_message_skip(raw, "v"))
      }
      try exit()
    }
    try exit()
    return entries
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
    while try Syscall.systemd("enter {sv}", sd_bus_message_enter_container(raw, Code.dictEntry, "sv")) > 0 {
      try body(try readText())
      try exit()
    }
    try exit()
  }

  /// Skips one `v`.
  func skipVariant() throws(Errno) {
    _ = try Syscall.systemd("sd_bus_message_skip", sd_bus_message_skip(raw, "v"))
  }

  /// Whether the sender is `name` (a unique name), without making a string of it.
  func isFrom(_ name: String) -> Bool {
    guard let sender = sd_bus_message_get_sender(raw) else { return false }
    return name.withCString { strcmp($0, sender) == 0 }
  }

  /// Reads `as`.
  func readStrings() throws(Errno) -> [String] {
    var strings: [String] = []
    try enter(Code.array, "s")
    var pointer: UnsafePointer<CChar>? = nil
    while try Syscall.systemd("read s", sd_bus_message_read_basic(raw, Code.string, &pointer)) > 0 {
      strings.append(pointer.map { String(cString: $0) } ?? "")
    }
    try exit()
    return strings
  }

  /// Reads `a{sa{sv}}` (interfaces and their properties), keeping only `interfaces`.
  func readInterfaces(_ interfaces: Set<String>) throws(Errno) -> [String: [String: PropertyValue]] {
    var result: [String: [String: PropertyValue]] = [:]
    try enter(Code.array, "{sa{sv}}")
    while try Syscall.systemd("enter {sa{sv}}", sd_bus_message_enter_container(raw, Code.dictEntry, "sa{sv}"))
      > 0
    {
      let name = try readText()
      if interfaces.contains(name) {
        result[name] = try readProperties()
      } else {
        _ = try Syscall.systemd("sd_bus_message_skip", sd_bus_message_skip(raw, "a{sv}"))
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
    while try Syscall.systemd(
      "enter {oa{sa{sv}}}", sd_bus_message_enter_container(raw, Code.dictEntry, "oa{sa{sv}}")) > 0
    {
      let path = try readText(Code.objectPath)
      let found = try readInterfaces(interfaces)
      try exit()
      each(path, found)
    }
    try exit()
  }
}
