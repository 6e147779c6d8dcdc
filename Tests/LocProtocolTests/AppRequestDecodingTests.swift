import LocProtocol
import Testing

@testable import LocCore

/// Bad input to the app methods: every member checked, bounded, and answered with
/// `invalid-params` naming what is wrong; nothing is cut or guessed.
@Suite struct AppRequestDecodingTests {
  func decode(_ method: String, _ params: String) -> Result<WireRequest, RequestError> {
    let line = #"{"id":1,"method":"\#(method)","params":\#(params)}"#
    return WireRequest.decode(Array(line.utf8)).map(\.1).mapError(\.error)
  }

  func refusal(_ method: String, _ params: String) throws -> RequestError {
    guard case .failure(let e) = decode(method, params) else {
      throw RequestError(.internalError, "\(method) \(params) was accepted")
    }
    return e
  }

  @Test(arguments: [
    (#"{"level":"sometimes","purpose":"p"}"#, "\"level\" must be when-in-use or always"),
    (#"{"purpose":"p"}"#, "\"level\" is required"),
    (#"{"level":"always"}"#, "\"purpose\" must be a string of 1 to 512 bytes"),
    (#"{"level":"always","purpose":""}"#, "\"purpose\" must be a string of 1 to 512 bytes"),
    (#"{"level":"always","purpose":"p","extra":1}"#, "unknown parameter \"extra\""),
  ])
  func requestAuthorizationRefuses(_ params: String, _ message: String) throws {
    let e = try refusal("request-authorization", params)
    #expect(e.code == .invalidParams)
    #expect(e.message.contains(message), "\(e.message)")
  }

  /// 512 bytes of purpose are taken as they are; 513 are refused, not cut.
  @Test func purposeIsBoundedNotCut() throws {
    let longest = String(repeating: "é", count: 256)  // 512 bytes
    #expect(
      try decode("request-authorization", #"{"level":"always","purpose":"\#(longest)"}"#).get()
        == .request(.requestAuthorization(.always, purpose: longest)))
    let huge = String(repeating: "x", count: 60_000)
    #expect(
      try refusal("request-authorization", #"{"level":"always","purpose":"\#(huge)"}"#).code == .invalidParams
    )
  }

  @Test(arguments: [
    ("set-activity", #"{"activity":"minimized"}"#), ("set-activity", "{}"),
    ("start-updates", #"{"distanceFilter":-1}"#), ("start-updates", #"{"desiredAccuracy":0}"#),
    ("start-updates", #"{"background":"yes"}"#), ("agent-answer", #"{"prompt":0,"answer":"deny"}"#),
    ("agent-answer", #"{"prompt":1,"answer":"maybe"}"#), ("agent-answer", #"{"prompt":1.5,"answer":"deny"}"#),
    ("list-apps", #"{"uid":-1}"#), ("list-apps", #"{"uid":4294967295}"#),
    ("change-app", #"{"change":"reset"}"#),
    ("change-app", #"{"app":"../etc","change":"reset"}"#), ("change-app", #"{"app":"a.b","change":"maybe"}"#),
    ("change-app", #"{"app":"a.b","change":"grant","level":"often"}"#), ("stop-updates", #"{"now":true}"#),
  ])
  func otherAppMethodsRefuse(_ method: String, _ params: String) throws {
    #expect(try refusal(method, params).code == .invalidParams)
  }

  /// `hello`'s `app` is taken as sent up to 255 bytes (the engine checks it is an app id and
  /// weighs it against the kernel); a longer one is refused, not cut.
  @Test func helloAppIsBounded() throws {
    let id = String(repeating: "a", count: 255)
    #expect(
      try decode("hello", #"{"protocol":1,"app":"\#(id)"}"#).get()
        == .hello(protocolMajor: 1, app: id, client: nil))
    #expect(try refusal("hello", #"{"protocol":1,"app":"\#(id)a"}"#).code == .invalidParams)
    #expect(try refusal("hello", #"{"protocol":1,"app":7}"#).code == .invalidParams)
  }
}
