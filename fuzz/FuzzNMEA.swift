// One fuzz target (fuzz/Main.swift lists them; fuzz/run.sh builds and runs them): NMEA framing
// and decoding. Besides "no crash", it checks the property the tests check on the fixtures:
// the same bytes give the same fixes and counters whatever the chunking.

func fuzzNMEA(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = UnsafeRawBufferPointer(start: data, count: size)

  // The first byte picks a chunk size (1...64) and whether there is a reference time.
  let selector = size > 0 ? Int(data[0]) : 0
  let chunk = selector % 64 + 1
  let reference: Instant? =
    selector & 0x40 != 0 ? Instant(microsecondsSinceEpoch: 1_770_000_000_000_000) : nil

  var whole = NMEADecoder(referenceTime: reference, gpsdJSON: true)
  var wholeFixes: [Fix] = []
  whole.feed(bytes) { wholeFixes.append($0) }
  whole.finish { wholeFixes.append($0) }

  var pieces = NMEADecoder(referenceTime: reference, gpsdJSON: true)
  var pieceFixes: [Fix] = []
  var offset = 0
  while offset < size {
    let end = min(offset + chunk, size)
    pieces.feed(UnsafeRawBufferPointer(rebasing: bytes[offset..<end])) { pieceFixes.append($0) }
    offset = end
  }
  pieces.finish { pieceFixes.append($0) }

  if wholeFixes != pieceFixes || whole.counters != pieces.counters {
    fatalError("chunk size \(chunk) changed the result: \(whole.counters) vs \(pieces.counters)")
  }

  // Each line through the lower layers directly, with a small line bound.
  var framer = NMEAFramer(maxLineLength: 40, maxJSONLineLength: 300)
  var assembler = EpochAssembler(referenceTime: reference)
  framer.feed(bytes) { line in
    _ = NMEASentence.timeOfDay(line)
    if case .sentence(let s) = NMEASentence.parse(line) { assembler.add(s) { _ in } }
    if line.first == 0x7B, case .tpv(let tpv)? = try? GpsdMessage.parse(line) { _ = tpv.fix(sky: nil) }
  }
  framer.finish { _ in }
  assembler.flush { _ in }
  if framer.bufferCapacity > 300 { fatalError("framer buffer grew to \(framer.bufferCapacity)") }
  return 0
}
