// libFuzzer entry point over beacon decoding from btsnoop bytes (one target of fuzz/Main.swift,
// built and run by fuzz/run.sh): btsnoop records, HCI events, advertising reports,
// AD structures, beacon frames. Besides "no crash", it checks that the same bytes give the
// same advertisements and counters whatever the chunking, and that the record counts add up.

func fuzzBTSnoop(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = UnsafeRawBufferPointer(start: data, count: size)
  // The first byte picks a chunk size (1...64).
  let chunk = size > 0 ? Int(data[0]) % 64 + 1 : 1

  var whole = BeaconCaptureDecoder(maxRecordLength: 300)
  var wholeAds: [BeaconAdvertisement] = []
  whole.feed(bytes) { wholeAds.append($0) }
  whole.finish()

  var pieces = BeaconCaptureDecoder(maxRecordLength: 300)
  var pieceAds: [BeaconAdvertisement] = []
  var offset = 0
  while offset < size {
    let end = min(offset + chunk, size)
    pieces.feed(UnsafeRawBufferPointer(rebasing: bytes[offset..<end])) { pieceAds.append($0) }
    offset = end
  }
  pieces.finish()

  if wholeAds != pieceAds || whole.counters != pieces.counters || whole.failure != pieces.failure {
    fatalError("chunk size \(chunk) changed the result: \(whole.counters) vs \(pieces.counters)")
  }
  let c = whole.counters
  if c.iBeacons + c.altBeacons != wholeAds.count {
    fatalError("beacon counts \(c.iBeacons) + \(c.altBeacons) but \(wholeAds.count) advertisements")
  }
  if c.reports != c.hci.legacyReports + c.hci.extendedReports {
    fatalError("reports \(c.reports) but the parser handed out \(c.hci.legacyReports + c.hci.extendedReports)")
  }
  // Every record is read whole, cut at the end, or stops reading: no byte unaccounted for
  // beyond one record.
  if c.capture.truncatedRecords > 1 { fatalError("more than one truncated record") }
  return 0
}
