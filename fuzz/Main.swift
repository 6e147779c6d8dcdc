// The libFuzzer entry point of the one fuzz binary fuzz/run.sh builds (the LocCore and
// LocProtocol sources and fuzz/*.swift compiled as one module, so they are compiled once for
// every target). FUZZ_TARGET picks the target; add a line below for a new one.

#if canImport(Glibc)
  import Glibc
#endif

/// Every target by the name `fuzz/run.sh TARGET` and FUZZ_TARGET use.
let fuzzTargets: [String: @Sendable (UnsafePointer<UInt8>, Int) -> Int32] = [
  "nmea": fuzzNMEA,
  "config": fuzzConfig,
  "timerrule": fuzzTimerRule,
  "json": fuzzJSON,
  "btsnoop": fuzzBTSnoop,
  "advertising": fuzzAdvertising,
  "bluez": fuzzBlueZ,
  "wire": fuzzWireRequest,
  "params": fuzzWireParams,
]

/// The target FUZZ_TARGET names, chosen once.
let fuzzTarget: @Sendable (UnsafePointer<UInt8>, Int) -> Int32 = {
  let name = getenv("FUZZ_TARGET").map { String(cString: $0) } ?? ""
  guard let target = fuzzTargets[name] else {
    fatalError("FUZZ_TARGET must be one of \(fuzzTargets.keys.sorted()), not '\(name)'")
  }
  return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  // libFuzzer passes a null pointer for the empty input; the targets take a valid one.
  var empty: UInt8 = 0
  return size == 0 ? fuzzTarget(&empty, 0) : fuzzTarget(data, size)
}
