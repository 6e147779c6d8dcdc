import CLocCurl
import LocCore

/// The geolocation lookups of `[Network]` (decision 0050): one POST at a time through
/// libcurl on a short-lived detached thread (curl's easy interface blocks), whose outcome
/// comes back as bytes through a socket pair the loop watches, as `HostResolver` does, so
/// the loop never waits on the network. The worker shares nothing mutable with the loop.
final class Geolocator {
  /// One exchange, run on the worker thread: posts and returns the outcome as bytes
  /// (`decode` reads them). A server that trickles fewer than 16 bytes a second for 5 s is
  /// given up on before the timeout (an answer is about 80 bytes).
  static func post(url: String, userAgent: String, body: String, timeoutMilliseconds: Int) -> [UInt8] {
    var result = loccurl_result()
    loccurl_post(url, userAgent, body, timeoutMilliseconds, 16, 5, GeolocateAnswer.maxBodyBytes, &result)
    defer { loccurl_free(&result) }
    return outcome(result)
  }

  /// A finished exchange as the bytes `decode` reads: a failure's code and words, or 0, the
  /// HTTP status in four bytes, then the body. Shared with `AssistanceDownload`'s GET.
  static func outcome(_ result: loccurl_result) -> [UInt8] {
    guard result.failure == 0 else {
      let words = withUnsafeBytes(of: result.error) { raw in Array(raw.prefix { $0 != 0 }) }
      return [UInt8(clamping: result.failure)] + words
    }
    let status = UInt32(clamping: result.status)
    var bytes = [
      0, UInt8(status >> 24), UInt8((status >> 16) & 255), UInt8((status >> 8) & 255), UInt8(status & 255),
    ]
    if let body = result.body { bytes += UnsafeBufferPointer(start: body, count: result.size) }
    return bytes
  }

  private let loop: EventLoop
  /// The worker and the answer coming back (a status and the body, at most 64 KiB).
  private let worker: WorkerCall
  /// libcurl loaded and its global state made, once, before the first worker (so a locd
  /// that never looks up maps no libcurl).
  static let ready: Bool = loccurl_global_init() == 0

  /// The User-Agent: locd and its version, nothing of the machine.
  static let userAgent = "locd/\(VersionReport.release)"

  init(loop: EventLoop) {
    self.loop = loop
    worker = WorkerCall(loop: loop, maxAnswerBytes: GeolocateAnswer.maxBodyBytes + 5, chunkSize: 16384)
  }

  /// Posts `query` to `url`; `done` is called later on the loop, once, unless cancelled.
  /// An IP-only query is not sent while a VPN-like interface carries the default route.
  func lookUp(
    _ query: GeolocateQuery, url: String, timeout: Duration, _ done: @escaping (GeolocateOutcome) -> Void
  ) {
    cancel()
    if query.accessPoints.isEmpty, let tunnel = Geolocator.tunnel() {
      loop.soon { done(.skipped("the default route goes through \(tunnel), a VPN: no IP lookup")) }
      return
    }
    guard Geolocator.ready else {
      let why = String(cString: loccurl_load_error())
      loop.soon { done(.failed(.transport, detail: why.isEmpty ? "libcurl could not be initialised" : why)) }
      return
    }
    let (userAgent, body) = (Geolocator.userAgent, query.body)
    let milliseconds = Int(timeout.seconds * 1000)
    do throws(WorkerCall.StartFailure) {
      try worker.start(
        runsHereWithoutThread: false,
        { Geolocator.post(url: url, userAgent: userAgent, body: body, timeoutMilliseconds: milliseconds) }
      ) { ending in
        switch ending {
        case .answer(let bytes): done(Geolocator.decode(bytes))
        case .readFailed(let error): done(.failed(.transport, detail: "lookup: \(error)"))
        case .tooLong: done(.failed(.tooLarge, detail: "answer over 64 KiB"))
        }
      }
    } catch {
      let detail: String
      switch error {
      case .noSocketPair(let failure): detail = "cannot start a lookup: \(failure)"
      case .noThread: detail = "no thread for the lookup"
      }
      loop.soon { done(.failed(.transport, detail: detail)) }
    }
  }

  /// Abandons the lookup in progress, if any: its `done` is never called.
  func cancel() { worker.cancel() }

  /// The worker's bytes as an outcome: 0 and a 4-byte status, then the body; or a failure
  /// kind (1 timeout, 2 too large, 3 transport) and libcurl's words.
  static func decode(_ bytes: [UInt8]) -> GeolocateOutcome {
    guard let kind = bytes.first else {
      return .failed(.transport, detail: "the lookup ended without an answer")
    }
    if kind == 0, bytes.count >= 5 {
      let status = bytes[1...4].reduce(0) { $0 << 8 | Int($1) }
      return .answered(status: status, body: Array(bytes.dropFirst(5)))
    }
    let words = String(decoding: bytes.dropFirst(), as: UTF8.self)
    switch kind {
    case 1: return .failed(.timeout, detail: "no answer in time (\(words))")
    case 2: return .failed(.tooLarge, detail: "answer over 64 KiB")
    default: return .failed(.transport, detail: words)
    }
  }

  /// The VPN-like interface that carries the default route, if one does (NetworkRoute says
  /// what the files show: IPv4's main table, IPv6's every table, IPv4's other tables).
  static func tunnel() -> String? {
    func text(_ path: String) -> String? {
      (try? FileIO.read(path: path, limit: 1 << 20)).map { String(decoding: $0, as: UTF8.self) }
    }
    return NetworkRoute.tunnel(
      procNetRoute: text("/proc/net/route"), procNetIPv6Route: text("/proc/net/ipv6_route"),
      fibTrie: text("/proc/net/fib_trie"), procNetDev: text("/proc/net/dev"))
  }
}
