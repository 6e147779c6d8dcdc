// One fuzz target (fuzz/Main.swift lists them; fuzz/run.sh builds and runs them): JSON.parse
// and gpsd's reports. Besides "no crash, no trap": a value that parses writes back
// (`serialized`) to text that parses within the same bounds and writes back as itself, and the work
// stays linear (libFuzzer's -timeout catches a quadratic path on its 64 KiB inputs).

func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  // The first byte picks small bounds sometimes, so the bound paths are fuzzed too.
  let small = size > 0 && data[0] & 1 == 1
  let depth = small ? 3 : 32
  let members = small ? 4 : JSON.defaultMaxMembers

  if let value = try? JSON.parse(bytes, maxDepth: depth, maxMembers: members) {
    let written = value.serialized
    if written.utf8.contains(0x0A) { fatalError("serialized JSON spans lines: \(written)") }
    do {
      // Numbers are written to 15 significant digits (JSON.numberText), so a value with more
      // reads back rounded; the text is then a fixed point: it writes back as itself.
      let again = try JSON.parse(written, maxDepth: depth, maxMembers: members)
      if again.serialized != written { fatalError("'\(written)' reads back as \(again.serialized)") }
    } catch {
      fatalError("'\(written)' does not parse: \(error)")
    }
  }
  if let message = try? GpsdMessage.parse(bytes), case .tpv(let tpv) = message, let fix = tpv.fix(sky: nil) {
    if let a = fix.horizontalAccuracy, !(a.value >= 0 && a.value.isFinite) {
      fatalError("accuracy \(a) from \(String(decoding: bytes, as: UTF8.self))")
    }
  }
  return 0
}
