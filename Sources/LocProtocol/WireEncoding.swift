import LocCore

#if canImport(Glibc)
  import Glibc
#endif

/// The JSON shapes of the core's reports (documented field by field in docs/PROTOCOL.md).
public enum WireEncoding {
  /// A response's `result` object.
  public static func encode(_ response: Response) -> JSON {
    switch response {
    case .status(let report): return encode(report)
    case .subscriptions(let kinds):
      return .object(["events": .array(kinds.sorted().map { .string($0.rawValue) })])
    case .manualLocation(let p):
      return .object(["manual": p.map { encode(position: $0, rounded: false) } ?? .null])
    case .done: return .object([:])
    case .timers(let list, let problems):
      return .object([
        "timers": .array(list.map(encode(timer:))), "problems": .array(problems.map { .string($0) }),
      ])
    case .timer(let status): return .object(["timer": encode(timer: status)])
    case .located(let answer): return encode(located: answer)
    case .acquisition(let report): return .object(["acquisition": encode(acquisition: report)])
    }
  }

  /// An event's `data` object.
  public static func encode(_ notice: Notice) -> JSON {
    switch notice {
    case .location(let resolved, let fix):
      return .object(["position": encode(resolved, rounded: false), "fix": fix.map(encode(fix:)) ?? .null])
    case .significantChange(let from, let to, let distance):
      return .object([
        "from": from.map { encode(position: $0, rounded: false) } ?? .null,
        "to": encode(position: to, rounded: false),
        "distance": .optional(distance.map { ($0.value * 10).rounded() / 10 }),
      ])
    case .sourceStatus(let s): return encode(source: s)
    case .timezoneChanged(let change):
      return .object([
        "from": change.from.map(encode(zone:)) ?? .null, "to": encode(zone: change.to),
        "reason": .string(change.reason.rawValue),
      ])
    case .solarRegenerated(let r):
      return .object([
        "reason": .string(r.reason.rawValue), "timezone": .string(r.zone),
        "before": .array(r.before.map(encode(day:))), "after": .array(r.after.map(encode(day:))),
      ])
    case .timerFired(let f, let zone, let local):
      let offset = Int(
        (local.microsecondsSinceLocalEpoch - f.occurrence.instant.microsecondsSinceEpoch) / 1_000_000)
      var o: JSONObject = [
        "name": .string(f.name), "rule": .string(f.rule.description), "action": encode(action: f.action),
        "date": .string(f.occurrence.date.description),
        "deadline": .string(f.occurrence.instant.iso8601(fractionDigits: 3)),
        "deadlineLocal": .string(local.rfc3339(offsetSeconds: offset)),
        "timezone": .string(zone),
      ]
      o["event"] = .optional(f.occurrence.eventInstant?.iso8601(fractionDigits: 3))
      o["late"] = .number(roundTo(f.late.seconds, 3))
      o["missed"] = .int(f.missed)
      o["note"] = .optional(f.occurrence.note)
      return .object(o)
    case .acquisition(let change):
      return .object([
        "from": .string(change.transition.from.rawValue), "to": .string(change.transition.to.rawValue),
        "reason": .string(change.transition.reason.description),
        "acquisition": encode(acquisition: change.report),
      ])
    }
  }

  /// The acquisition state (docs/PROTOCOL.md, "acquisition object"). Durations in seconds.
  public static func encode(acquisition a: AcquisitionReport) -> JSON {
    var o: JSONObject = [
      "policy": .string(a.policy.mode.rawValue), "refreshInterval": .number(a.policy.refreshInterval.seconds),
      "timeout": .number(a.policy.timeout.seconds), "accuracy": .number(a.policy.accuracy.value),
      "phase": .string(a.phase.rawValue), "receivers": .string(a.receiversActive ? "active" : "released"),
      "reasons": .array(a.reasons.map { .string($0.rawValue) }), "failures": .int(a.failures),
      "attempts": .int(a.attempts),
      "subscribers": .int(a.subscribers), "pendingLocates": .int(a.pendingLocates),
    ]
    o["since"] = .optional(a.since?.iso8601())
    o["deadline"] = .optional(a.deadline?.iso8601())
    o["nextRefresh"] = .optional(a.nextRefresh?.iso8601())
    if let t = a.lastTransition {
      o["lastTransition"] = .object([
        "from": .string(t.from.rawValue), "to": .string(t.to.rawValue),
        "reason": .string(t.reason.description),
        "at": .string(t.at.iso8601()),
      ])
    } else {
      o["lastTransition"] = .null
    }
    switch a.lastOutcome {
    case .settled(let at, let accuracy)?:
      o["lastOutcome"] = .object([
        "result": .string("settled"), "at": .string(at.iso8601()),
        "accuracy": .optional(accuracy.map { roundTo($0.value, 1) }),
      ])
    case .timedOut(let at)?:
      o["lastOutcome"] = .object([
        "result": .string("timed-out"), "at": .string(at.iso8601()), "accuracy": .null,
      ])
    case nil:
      o["lastOutcome"] = .null
    }
    return .object(o)
  }

  /// A `locate` answer: the position (full precision, with tier, age, reason), its
  /// provenance, and whether the accuracy asked for was met.
  public static func encode(located a: LocateAnswer) -> JSON {
    var o: JSONObject = [
      "position": encode(a.position, rounded: false), "provenance": .string(a.provenance.rawValue),
      "accuracyMet": .bool(a.accuracyMet), "wanted": .number(a.wanted.value),
      "waited": .number(roundTo(a.waited.seconds, 3)),
    ]
    o["note"] = .optional(a.note)
    return .object(o)
  }

  /// A zone: `id`, `origin`, `offset` (seconds east), `abbreviation`.
  public static func encode(zone z: ZoneReport) -> JSON {
    var o: JSONObject = ["id": .string(z.id), "origin": .string(z.origin.rawValue)]
    o["offset"] = .optional(z.offsetSeconds)
    o["abbreviation"] = .optional(z.abbreviation)
    return .object(o)
  }

  /// One solar day like `locctl sun --json`: `date`, each event's UTC time or null, and
  /// `polar` saying why for each null.
  public static func encode(day: SolarDaySummary) -> JSON {
    var o: JSONObject = ["date": .string(day.date.description)]
    var polar = JSONObject()
    for entry in day.events {
      let key = entry.event.description
      switch entry.occurrence {
      case .at(let t): o[key] = .string(t.iso8601())
      case .never(let why):
        o[key] = .null
        polar[key] = .string(why.rawValue)
      }
    }
    o["polar"] = .object(polar)
    return .object(o)
  }

  /// A timer action: `{"type":"event"}`, `{"type":"unit","unit":...}`,
  /// `{"type":"command","path":...,"user":...}` (arguments are not shown).
  public static func encode(action: TimerAction) -> JSON {
    switch action {
    case .event: return .object(["type": .string("event")])
    case .startUnit(let unit): return .object(["type": .string("unit"), "unit": .string(unit)])
    case .command(let argv, let user):
      return .object(["type": .string("command"), "path": .string(argv.first ?? ""), "user": .optional(user)])
    }
  }

  /// A timer with its next deadline (docs/TIMERS.md).
  public static func encode(timer t: TimerStatus) -> JSON {
    let d = t.definition
    var o: JSONObject = [
      "name": .string(d.name), "rule": .string(d.rule.description), "action": encode(action: d.action),
      "missed": .string(d.missed.rawValue),
    ]
    switch d.origin {
    case .runtime:
      o["origin"] = .string("runtime")
      o["file"] = .null
    case .file(let path):
      o["origin"] = .string("file")
      o["file"] = .string(path)
    }
    o["next"] = .optional(t.next?.instant.iso8601())
    if let local = t.nextLocal, let offset = t.nextOffsetSeconds {
      o["nextLocal"] = .string(local.rfc3339(offsetSeconds: offset))
    } else {
      o["nextLocal"] = .null
    }
    o["abbreviation"] = .optional(t.nextAbbreviation)
    o["date"] = .optional(t.next?.date.description)
    o["event"] = .optional(t.next?.eventInstant?.iso8601())
    o["reason"] = .string(t.reason)
    o["lastFired"] = .optional(t.lastFiredAt?.iso8601(fractionDigits: 3))
    o["timezone"] = .string(t.zone)
    return .object(o)
  }

  /// The status report. Coordinates are rounded to the position's accuracy.
  public static func encode(_ r: StatusReport) -> JSON {
    var zone: JSONObject = ["id": .string(r.timeZone.id), "origin": .string(r.timeZone.origin.rawValue)]
    zone["offset"] = .optional(r.timeZone.offsetSeconds)
    zone["abbreviation"] = .optional(r.timeZone.abbreviation)
    zone["reason"] = .optional(r.timeZone.reason)
    zone["borderDistance"] = .optional(r.timeZone.borderDistance.map { ($0.value).rounded() })
    var sun: JSONObject = ["date": .null, "sunrise": .null, "sunset": .null, "note": .null]
    if let s = r.sun {
      sun["date"] = .string(s.date.description)
      sun["sunrise"] = .optional(s.sunrise?.iso8601())
      sun["sunset"] = .optional(s.sunset?.iso8601())
      sun["note"] = .optional(s.note)
    }
    var rejected = JSONObject()
    for c in r.rejectedFixes { rejected[c.name] = .int(c.value) }
    var server = JSONObject()
    server["sessions"] = .int(r.sessions)
    for c in r.server.all { server[c.name] = .int(c.value) }
    let daemon: JSONObject = [
      "startedAt": .string(r.startedAt.iso8601()), "stateProblem": .optional(r.stateProblem),
    ]
    let fix: JSON =
      r.fix.map { f in
        var o: JSONObject = ["mode": .int(f.mode.rawValue), "quality": .optional(f.quality?.rawValue)]
        o["satellitesUsed"] = .optional(f.satellitesUsed)
        o["satellitesInView"] = .optional(f.satellitesInView)
        o["accuracy"] = .optional(f.accuracy.map { roundTo($0.value, 1) })
        o["hdop"] = .optional(f.hdop)
        o["time"] = .string(f.time.iso8601(fractionDigits: 3))
        return JSON.object(o)
      } ?? .null
    return .object([
      "position": encode(r.position, rounded: true), "fix": fix, "timezone": .object(zone),
      "sun": .object(sun),
      "sources": .array(r.sources.map(encode(source:))), "server": .object(server), "daemon": .object(daemon),
      "summary": .string(r.summary),
      "timers": .object(["count": .int(r.timers), "next": r.nextTimer.map(encode(timer:)) ?? .null]),
      "rejectedFixes": .object(rejected),
      "acquisition": r.acquisition.map(encode(acquisition:)) ?? .null,
    ])
  }

  /// The resolver's answer: always has `tier`; `lat`/`lon` are null in degraded mode.
  public static func encode(_ resolved: ResolvedPosition, rounded: Bool) -> JSON {
    var o: JSONObject
    if let p = resolved.position, case .object(let base) = encode(position: p, rounded: rounded) {
      o = base
    } else {
      o = ["lat": .null, "lon": .null, "accuracy": .null]
    }
    o["tier"] = .string(resolved.tier.rawValue)
    o["age"] = .optional(resolved.age.map { roundTo($0.seconds, 1) })
    o["reason"] = .optional(resolved.reason)
    o["remedy"] = .optional(resolved.remedy)
    return .object(o)
  }

  /// A position. With `rounded`, coordinates keep only the decimals its accuracy justifies.
  public static func encode(position p: Position, rounded: Bool) -> JSON {
    let decimals = rounded ? decimalsFor(accuracy: p.accuracy) : 7
    var o: JSONObject = [
      "lat": .number(roundTo(p.coordinate.latitude.value, decimals)),
      "lon": .number(roundTo(p.coordinate.longitude.value, decimals)),
    ]
    o["accuracy"] = .optional(p.accuracy.map { roundTo($0.value, 1) })
    o["altitude"] = .optional(p.altitude.map { roundTo($0.value, 1) })
    o["time"] = .string(p.time.iso8601(fractionDigits: 3))
    o["source"] = .string(p.source)
    if let name = p.name { o["name"] = .string(name) }
    return .object(o)
  }

  /// A fix in gpsd TPV terms (time, mode, lat, lon, altMSL, speed, track) plus locd's own:
  /// `accuracy` (the 68 % radius; gpsd's `eph` is a 95 % one, so the name is not borrowed).
  public static func encode(fix f: Fix) -> JSON {
    var o: JSONObject = ["time": .string(f.time.iso8601(fractionDigits: 3)), "mode": .int(f.mode.rawValue)]
    o["lat"] = .optional(f.coordinate?.latitude.value)
    o["lon"] = .optional(f.coordinate?.longitude.value)
    o["altMSL"] = .optional(f.altitudeMSL?.value)
    o["speed"] = .optional(f.speed?.value)
    o["track"] = .optional(f.course?.value)
    o["accuracy"] = .optional(f.horizontalAccuracy?.value)
    o["quality"] = .optional(f.quality?.rawValue)
    o["satellitesUsed"] = .optional(f.satellitesUsed)
    o["satellitesInView"] = .optional(f.satellitesInView)
    o["hdop"] = .optional(f.hdop)
    return .object(o)
  }

  /// A source with its state and counters.
  public static func encode(source s: SourceSnapshot) -> JSON {
    var counters = JSONObject()
    for c in s.counters { counters[c.name] = .int(c.value) }
    var o: JSONObject = ["uri": .string(s.uri), "state": .string(s.state.name)]
    if case .reconnecting(let at) = s.state { o["retryAt"] = .string(at.iso8601()) }
    o["lastError"] = .optional(s.lastError)
    o["counters"] = .object(counters)
    return .object(o)
  }

  /// Decimal places so that one unit of the last place is no larger than the accuracy
  /// (one degree of latitude is 111,320 m); 4 places (11 m) when accuracy is unknown.
  public static func decimalsFor(accuracy: Meters?) -> Int {
    guard let a = accuracy?.value, a > 0 else { return 4 }
    return max(0, min(6, Int(ceil(log10(111_320 / a)))))
  }

  static func roundTo(_ v: Double, _ decimals: Int) -> Double {
    let scale = pow(10, Double(decimals))
    return (v * scale).rounded() / scale
  }
}
