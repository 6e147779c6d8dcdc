import LocCore
import LocProtocol
import Testing

/// What a client does with a line it cannot use: a clear error naming where in the message
/// the problem is, never a crash and never a half-filled view.
@Suite struct MalformedMessageTests {
  func problem(_ line: String) -> String? {
    do {
      _ = try ServerMessage.decode(Array(line.utf8))
      return nil
    } catch {
      return error.description
    }
  }

  func resultProblem<R>(_ call: Call<R>, _ result: String) -> String? {
    do {
      _ = try call.result(JSON.parse(result))
      return nil
    } catch {
      return "\(error)"
    }
  }

  @Test func serverLines() {
    let cases: [(String, String)] = [
      ("{", "not valid JSON"),
      ("[1]", "the message: expected an object, got an array"),
      (#"{"id":1}"#, "type: missing"),
      (#"{"type":"hi"}"#, "type: unknown message type \"hi\""),
      (#"{"type":"reply","id":1}"#, "result: missing"),
      (#"{"type":"reply","id":1.5,"result":{}}"#, "id: must be an integer or a string"),
      (
        #"{"type":"hello","protocol":{"major":"1","minor":0},"server":"x"}"#,
        "protocol.major: expected a number, got a string"
      ),
      (
        #"{"type":"hello","protocol":{"major":1,"minor":-1},"server":"x"}"#,
        "protocol: versions are not negative"
      ),
      (#"{"type":"error","id":null,"error":{"code":"failed"}}"#, "error.message: missing"),
      (
        #"{"type":"event","event":"location","time":"yesterday","data":{}}"#, "time: not an ISO-8601 UTC time"
      ),
      (
        #"{"type":"event","event":"location","time":"2026-01-01T00:00:00Z","data":{"position":{"lat":91,"lon":0,"time":"2026-01-01T00:00:00Z","source":"x","tier":"fix"},"fix":null}}"#,
        "data.position: latitude must be -90...90"
      ),
      (
        #"{"type":"event","event":"location","time":"2026-01-01T00:00:00Z","data":{"position":{"lat":null,"lon":null,"tier":"somewhere"}}}"#,
        "data.position.tier: unknown value \"somewhere\""
      ),
      (
        #"{"type":"event","event":"source-status","time":"2026-01-01T00:00:00Z","data":{"uri":"x","state":"connected","counters":{"fixes":1.5}}}"#,
        "data.counters.fixes: expected an integer, got 1.5"
      ),
      (
        #"{"type":"event","event":"timer-fired","time":"2026-01-01T00:00:00Z","data":{"name":"a","rule":"22:00","action":{"type":"shell"}}}"#,
        "data.action.type: must be event, unit or command, got \"shell\""
      ),
    ]
    for (line, words) in cases {
      let p = problem(line)
      #expect(p?.contains(words) == true, "\(line): \(p ?? "decoded")")
    }
  }

  /// A path joins its last member only when read or extended (decoders name every member
  /// they read; only errors read the name): the text is the same either way.
  @Test func pathsReadTheSameHoweverTheyWereBuilt() {
    let top = WirePath()
    #expect(top.description == "the message")
    #expect(top.member("result").text == "result")
    let deep = top.member("result").member("timers").element(0).member("rule")
    #expect(deep.text == "result.timers[0].rule")
    #expect(deep.joined.text == deep.text)
    #expect(deep.joined == deep)
    #expect(top.member("a").member("b") == top.member("a").joined.member("b"))
    #expect(top.member("a") != top.member("b"))
    #expect(Set([deep, deep.joined]).count == 1)
  }

  @Test func replyResults() {
    #expect(resultProblem(.status, "{}")?.contains("result.position: missing") == true)
    #expect(
      resultProblem(
        .refresh,
        #"{"acquisition":{"policy":"on-demand","refreshInterval":900,"timeout":60,"accuracy":50,"phase":"idle","receivers":"active"}}"#
      )?
      .contains("result.acquisition.receivers: \"active\" does not match phase idle") == true)
    #expect(
      resultProblem(.listTimers, #"{"timers":[{"name":"a"}],"problems":[]}"#)?.contains(
        "result.timers[0].rule: missing")
        == true)
    #expect(
      resultProblem(
        .showTimer("a"),
        #"{"timer":{"name":"a","rule":"r","action":{"type":"event"},"missed":"skip","origin":"runtime","nextLocal":"22:00","reason":"","timezone":"UTC"}}"#
      )?
      .contains("result.timer.nextLocal: not a local time with offset") == true)
    #expect(
      resultProblem(.locate(), #"{"position":{"tier":"none"},"provenance":"maybe"}"#)?.contains(
        "result.provenance") == true)
  }

  /// What a newer minor version may add is taken, not refused.
  @Test func newerMinorAdditionsAreKept() throws {
    let line =
      #"{"type":"event","event":"source-status","time":"2026-01-01T00:00:00Z","data":{"uri":"x","state":"sleeping","counters":{},"battery":0.5}}"#
    guard case .event(let e) = try ServerMessage.decode(Array(line.utf8)), case .sourceStatus(let s) = e.data
    else {
      Issue.record("expected a source-status event")
      return
    }
    #expect(s.state == .other("sleeping"))
    #expect(s.state.word == "sleeping")
    let error = try ServerMessage.decode(
      Array(#"{"type":"error","id":3,"error":{"code":"too-bright","message":"m"}}"#.utf8))
    #expect(error == .error(id: .number(3), ErrorReply(code: .other("too-bright"), message: "m")))
  }
}
