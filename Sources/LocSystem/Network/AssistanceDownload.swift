import CLocCurl
import LocCore

/// A modem's GNSS assistance file (XTRA: satellite orbits for the next days) fetched from the
/// server the modem names (Modem.Location's AssistanceDataServers), decision 0055: one GET at
/// a time through libcurl on a detached worker thread, as `Geolocator` posts, its outcome
/// back through a socket pair the loop watches. The request carries nothing but the URL's
/// GET and locd's User-Agent.
final class AssistanceDownload {
  /// The largest file read (Qualcomm's xtra2.bin and xtra3grc.bin are tens of kilobytes).
  static let maxBytes = 1 << 20
  /// The whole exchange gives up after this long.
  static let timeoutMilliseconds = 30_000

  private let loop: EventLoop
  private let worker: WorkerCall

  init(loop: EventLoop) {
    self.loop = loop
    worker = WorkerCall(loop: loop, maxAnswerBytes: Self.maxBytes + 5, chunkSize: 65_536)
  }

  /// One exchange, run on the worker thread: the outcome as `Geolocator.decode` reads it.
  static func get(url: String, userAgent: String, timeoutMilliseconds: Int) -> [UInt8] {
    var result = loccurl_result()
    loccurl_get(url, userAgent, timeoutMilliseconds, 256, 10, maxBytes, &result)
    defer { loccurl_free(&result) }
    return Geolocator.outcome(result)
  }

  /// Fetches `url` (http or https only); `done` is called later on the loop, once, with the
  /// file's bytes or why not, unless cancelled.
  func fetch(_ url: String, _ done: @escaping (Result<[UInt8], AssistanceProblem>) -> Void) {
    cancel()
    guard url.hasPrefix("https://") || url.hasPrefix("http://"), url.utf8.count <= 2048 else {
      loop.soon { done(.failure(AssistanceProblem("not an http or https URL"))) }
      return
    }
    guard Geolocator.ready else {
      let why = String(cString: loccurl_load_error())
      loop.soon { done(.failure(AssistanceProblem(why.isEmpty ? "libcurl could not be initialised" : why))) }
      return
    }
    let userAgent = Geolocator.userAgent
    do throws(WorkerCall.StartFailure) {
      try worker.start(
        runsHereWithoutThread: false,
        {
          AssistanceDownload.get(
            url: url, userAgent: userAgent, timeoutMilliseconds: Self.timeoutMilliseconds)
        }
      ) { ending in
        switch ending {
        case .answer(let bytes): done(Self.judge(Geolocator.decode(bytes)))
        case .readFailed(let error): done(.failure(AssistanceProblem("download: \(error)")))
        case .tooLong: done(.failure(AssistanceProblem("the file is over 1 MiB")))
        }
      }
    } catch {
      loop.soon { done(.failure(AssistanceProblem("cannot start the download"))) }
    }
  }

  /// Abandons the download in progress, if any: its `done` is never called.
  func cancel() { worker.cancel() }

  /// A 200 with a body is the file; anything else says why not.
  static func judge(_ outcome: GeolocateOutcome) -> Result<[UInt8], AssistanceProblem> {
    switch outcome {
    case .answered(200, let body) where !body.isEmpty: return .success(body)
    case .answered(200, _): return .failure(AssistanceProblem("the server sent an empty file"))
    case .answered(let status, _): return .failure(AssistanceProblem("HTTP status \(status)"))
    case .failed(.tooLarge, _): return .failure(AssistanceProblem("the file is over 1 MiB"))
    case .failed(_, let detail): return .failure(AssistanceProblem(detail))
    case .skipped(let why): return .failure(AssistanceProblem(why))
    }
  }
}

/// Why no assistance file came, in words for status and the log.
struct AssistanceProblem: Error, Equatable {
  var detail: String
  init(_ detail: String) { self.detail = detail }
}
