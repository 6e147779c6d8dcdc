// One fuzz target (fuzz/Main.swift lists them; fuzz/run.sh builds and runs them): the socket
// protocol's decoders. Any bytes a client can send reach `WireRequest.decode` before the
// handshake, so it must never trap, and every request it accepts must survive a client's
// encoding unchanged, `decode(line(id)) == (id, request)`, but for numbers past 15 significant
// digits, which are written rounded: then the line must decode to a request written as itself. The same bytes also go through
// `ServerMessage.decode`, the client's side, which must not trap either.

func fuzzWireRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = UnsafeBufferPointer(start: data, count: size)

  if case .success((let id, let request)) = WireRequest.decode(bytes) { checkReencoding(id, request) }
  _ = try? ServerMessage.decode(bytes)
  return 0
}

/// Traps unless a request the daemon accepted is one its client encodes back to itself.
func checkReencoding(_ id: RequestID, _ request: WireRequest) {
  let line = request.line(id: id)
  switch WireRequest.decode(Array(line.utf8)) {
  // Numbers are written to 15 significant digits (JSON.numberText): a request carrying more
  // (a latitude of 17 digits) reads back rounded, and its line is then a fixed point.
  case .success((let id2, let request2))
  where id2 == id && (request2 == request || request2.line(id: id2) == line):
    break
  case .success((let id2, let request2)):
    fatalError("re-encoded request differs: \(id) \(request) -> \(line) -> \(id2) \(request2)")
  case .failure(let failure):
    fatalError("re-encoded request refused: \(id) \(request) -> \(line): \(failure.error.message)")
  }
}
