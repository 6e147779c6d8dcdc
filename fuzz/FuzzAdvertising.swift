// libFuzzer entry point over HCI advertising reports, AD structures and beacon frames without
// the btsnoop layer (one target of fuzz/Main.swift, built and run by fuzz/run.sh).
// The input is a sequence of HCI events, each `length` then that many bytes, so extended
// reports can be fragmented across events; each event is also walked as AD data and each AD
// value parsed as manufacturer data. Checks: the spec's bounds hold for what comes out.

func fuzzAdvertising(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = UnsafeRawBufferPointer(start: data, count: size)
  var parser = HCIAdvertisingParser()
  var counts = BeaconCaptureDecoder.Counters()
  var beacons = 0
  var offset = 0
  while offset < size {
    let length = Int(bytes[offset])
    let end = min(offset + 1 + length, size)
    let event = UnsafeRawBufferPointer(rebasing: bytes[(offset + 1)..<end])
    offset = end
    parser.parse(event: event) { report, data in
      if data.count > HCIAdvertisingParser.maxAdvertisingDataLength {
        fatalError("advertising data of \(data.count) bytes")
      }
      if let rssi = report.rssi, !(-127...20).contains(rssi.value) { fatalError("RSSI \(rssi)") }
      BeaconCaptureDecoder.beacons(in: data, report: report, time: Instant(microsecondsSinceEpoch: 0), counts: &counts) {
        _ in beacons += 1
      }
    }
    // The same bytes as AD data, and every AD value as manufacturer data.
    var steps = 0
    AdvertisingData.walk(event) { _, value in
      steps += 1
      if steps > event.count { fatalError("AD walk did not advance") }
      if case .beacon(let p) = BeaconPayload.parse(manufacturerData: value),
        let power = p.calibratedPower, !BeaconPayload.plausiblePower.contains(Int(power.value))
      {
        fatalError("implausible power \(power) passed as calibrated")
      }
      return true
    }
  }
  if beacons != counts.iBeacons + counts.altBeacons { fatalError("beacon count mismatch") }
  return 0
}
