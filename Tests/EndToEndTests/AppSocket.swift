import Foundation
import Glibc
import LocCore
import LocProtocol

/// An app's connection to the real locd over the socket: hello with an app id, calls whose
/// replies are read past the events that come first (kept, in order).
final class AppSocket {
  let raw: RawClient
  private(set) var events: [EventMessage] = []
  private var next: Int64 = 1

  init(_ daemon: LocdProcess, app: String) throws {
    raw = try RawClient(path: daemon.socketPath)
    guard case .greeting = try raw.readMessage() else { throw HarnessError("no greeting") }
    try raw.send(.hello(app: app, client: "test"), id: .number(0))
    let hello = try raw.reply(to: .number(0), .hello(app: app, client: "test"))
    guard hello.app != nil else { throw HarnessError("not taken as an app") }
  }

  /// Sends `call`; its result, or the daemon's error thrown (`ErrorReply`).
  func call<R>(_ c: Call<R>, timeout: Double = 10) throws -> R {
    let id = RequestID.number(next)
    next += 1
    try raw.send(c, id: id)
    while true {
      switch try raw.readMessage(timeout: timeout) {
      case .event(let e): events.append(e)
      case .reply(id, let result): return try c.result(result)
      case .error(let errorID, let reply) where errorID == id: throw reply
      case let other: throw HarnessError("expected the answer to \(id), got \(other.line)")
      }
    }
  }

  /// Reads events until one satisfies `condition` (kept with the others); throws on timeout.
  @discardableResult
  func wait(timeout: Double = 30, for condition: (EventMessage) -> Bool) throws -> EventMessage {
    if let e = events.first(where: condition) { return e }
    let deadline = Date().addingTimeInterval(timeout)
    while deadline.timeIntervalSinceNow > 0 {
      guard case .event(let e) = try raw.readMessage(timeout: deadline.timeIntervalSinceNow) else { continue }
      events.append(e)
      if condition(e) { return e }
    }
    throw HarnessError("timed out waiting for an event; got \(events.map(\.data.name))")
  }

  /// Reads what arrives within `seconds` (events kept).
  func drain(for seconds: Double) {
    let deadline = Date().addingTimeInterval(seconds)
    while deadline.timeIntervalSinceNow > 0 {
      guard let m = try? raw.readMessage(timeout: deadline.timeIntervalSinceNow) else { return }
      if case .event(let e) = m { events.append(e) }
    }
  }

  /// The region events so far, with their time.
  var regionEvents: [(time: Instant, data: RegionEventView)] {
    events.compactMap { if case .region(let r) = $0.data { return ($0.time, r) } else { return nil } }
  }

  /// Ends the connection (the descriptor itself is closed with the client).
  func close() { _ = shutdown(raw.socket.rawValue, Int32(SHUT_RDWR)) }
}
