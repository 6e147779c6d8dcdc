import LocCore

// The light/dark methods' params (docs/PROTOCOL.md, "Light and dark"): `light-dark` takes
// `dark` and `light` (rules, both or neither) and `follow`; `set-mode` takes `mode`.
// Anything else is refused.
extension WireRequest {
  /// The light/dark request for `method`, nil if `method` is not one of them.
  static func decodeLightDark(method: String, params: JSONObject) -> Result<Request, RequestError>? {
    let known: [String: [String]] = ["light-dark": ["dark", "light", "follow"], "set-mode": ["mode"]]
    guard let allowed = known[method] else { return nil }
    for key in params.keys.sorted() where !allowed.contains(key) {
      let takes = allowed.map { "\"\($0)\"" }.joined(separator: ", ")
      return .failure(
        RequestError(.invalidParams, "unknown parameter \"\(key.prefix(64))\"; \(method) takes \(takes)"))
    }
    if method == "set-mode" {
      let words = ModeChange.allCases.map(\.rawValue).joined(separator: ", ")
      guard let text = params["mode"]?.string, let change = ModeChange(rawValue: text) else {
        return .failure(RequestError(.invalidParams, "set-mode needs \"mode\": one of \(words)"))
      }
      return .success(.setMode(change))
    }
    var follow = false
    if let v = params["follow"], !v.isNull {
      guard case .bool(let b) = v else {
        return .failure(RequestError(.invalidParams, "\"follow\" must be true or false"))
      }
      follow = b
    }
    let dark = params["dark"].flatMap { $0.isNull ? nil : $0 }
    let light = params["light"].flatMap { $0.isNull ? nil : $0 }
    switch (dark, light) {
    case (nil, nil):
      return .success(.lightDark(rules: nil, follow: follow))
    case (let d?, let l?):
      guard let darkText = d.string, let lightText = l.string else {
        return .failure(RequestError(.invalidParams, "\"dark\" and \"light\" must be rules (strings)"))
      }
      do {
        return .success(
          .lightDark(rules: try LightDarkRules(dark: darkText, light: lightText), follow: follow))
      } catch {
        return .failure(RequestError(.invalidParams, error.description))
      }
    default:
      return .failure(RequestError(.invalidParams, "give both \"dark\" and \"light\", or neither"))
    }
  }

  /// The params of a light/dark request.
  static func lightDarkParams(_ r: Request) -> JSONObject {
    switch r {
    case .lightDark(let rules, let follow):
      var o: JSONObject = [:]
      if let rules {
        o["dark"] = .string(rules.dark.description)
        o["light"] = .string(rules.light.description)
      }
      if follow { o["follow"] = .bool(true) }
      return o
    case .setMode(let change): return ["mode": .string(change.rawValue)]
    default: return [:]
    }
  }
}
