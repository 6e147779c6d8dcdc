// One fuzz target (fuzz/Main.swift lists them; fuzz/run.sh builds and runs them): the typed
// decoding of every method's params, and of the state files' records. The `wire` target
// starts from raw bytes and rarely gets past the JSON and the method name to a number in a
// well-formed params object (issue 28: `"dwell": 1e21` trapped there, found by a person).
// Here the first byte picks the method (WireRequest.methods) and the rest is the params
// object, so the fuzzer spends its work on the values. The same object is also read as an
// apps.json record and as state.json's last-known position, as a planted file would hold it.
// Nothing may trap; an accepted request must survive its client's encoding unchanged.

func fuzzWireParams(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  guard let first = bytes.first else { return 0 }
  let methods = WireRequest.methods
  let method = methods[Int(first) % methods.count]
  guard let params = try? JSON.parse(bytes.dropFirst(), maxDepth: 8), case .object = params else { return 0 }
  let line: JSON = .object(["id": .number(1), "method": .string(method), "params": params])
  if case .success((let id, let request)) = WireRequest.decode(Array(line.serialized.utf8)) {
    checkReencoding(id, request)
  }
  let apps: JSON = .object(["version": .number(1), "apps": .array([params])])
  _ = try? AppStore(decoding: Array(apps.serialized.utf8))
  let state: JSON = .object(["version": .number(1), "lastKnown": params, "manual": .null])
  _ = try? StoredState(decoding: Array(state.serialized.utf8))
  return 0
}
