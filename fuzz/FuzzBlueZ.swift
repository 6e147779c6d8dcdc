// libFuzzer entry point over what the bluez: source takes from BlueZ once read off the bus:
// sequences of Device1 announcements, property changes and removals into BlueZDeviceTable
// (one target of fuzz/Main.swift, built and run by fuzz/run.sh). Input, op after op:
//   op byte: low 2 bits 0 added, 1 changed, 2 removed, 3 all removed; bits 2-4 the device (8 paths)
//   for added/changed: a count byte (mod 5), then per change a kind byte (mod 5):
//     0 Address (6 bytes), 1 RSSI (1 signed byte), 2 RSSI invalidated,
//     3 ManufacturerData: entries (byte mod 3), each company (2 bytes LE), length byte, bytes
//       (cut at the end of input: lengths past the end), 4 ManufacturerData invalidated.
// Checks: a sighting has an RSSI and only a plausible calibrated power; the counters add up;
// the table never holds more devices than were named.

func fuzzBlueZ(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  var input = FuzzBytes(data, size)
  var table = BlueZDeviceTable()
  var returned = 0
  while let op = input.next() {
    let path = "/org/bluez/hci0/dev_\((op >> 2) & 7)"
    switch op & 3 {
    case 0, 1:
      var changes: [BlueZDeviceTable.Change] = []
      for _ in 0..<Int(input.next() ?? 0) % 5 {
        guard let change = input.change() else { break }
        changes.append(change)
      }
      let sighting = op & 3 == 0 ? table.added(path, changes) : table.changed(path, changes)
      if let s = sighting {
        returned += 1
        if s.rssi == nil { fatalError("a sighting without an RSSI") }
        if let p = s.calibratedPower, !BeaconPayload.plausiblePower.contains(Int(p.value)) {
          fatalError("implausible power \(p) passed as calibrated")
        }
      }
    case 2: table.removed(path)
    default: table.removeAll()
    }
    if table.count > 8 { fatalError("\(table.count) devices from 8 paths") }
  }
  let c = table.counters
  if c.sightings != returned || c.sightings != c.iBeacons + c.altBeacons { fatalError("counters: \(c)") }
  return 0
}

/// The fuzz input read byte by byte.
struct FuzzBytes {
  let bytes: UnsafeBufferPointer<UInt8>
  var offset = 0

  init(_ data: UnsafePointer<UInt8>, _ size: Int) { bytes = UnsafeBufferPointer(start: data, count: size) }

  mutating func next() -> UInt8? {
    guard offset < bytes.count else { return nil }
    defer { offset += 1 }
    return bytes[offset]
  }

  /// Up to `n` bytes (fewer at the end of the input).
  mutating func take(_ n: Int) -> [UInt8] {
    let end = min(offset + n, bytes.count)
    defer { offset = end }
    return Array(bytes[offset..<end])
  }

  mutating func change() -> BlueZDeviceTable.Change? {
    guard let kind = next() else { return nil }
    switch kind % 5 {
    case 0:
      var v: UInt64 = 0
      for b in take(6) { v = v << 8 | UInt64(b) }
      return .address(BluetoothAddress(value: v))
    case 1: return next().map { .rssi(DecibelMilliwatts(Int(Int8(bitPattern: $0)))) }
    case 2: return .rssiGone
    case 3:
      var entries: [BlueZDeviceTable.ManufacturerData] = []
      for _ in 0..<Int(next() ?? 0) % 3 {
        let company = take(2)
        let length = Int(next() ?? 0)
        let companyID = company.count == 2 ? UInt16(company[0]) | UInt16(company[1]) << 8 : 0
        entries.append(.init(company: companyID, bytes: take(length)))
      }
      return .manufacturerData(entries)
    default: return .manufacturerDataGone
    }
  }
}
