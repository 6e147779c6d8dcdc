import LocCore

// The heading methods' params (docs/PROTOCOL.md, "Heading"): `start-heading` takes an
// optional `filter`, `stop-heading` nothing; anything else is refused.
extension WireRequest {
  /// The filter `start-heading` uses when none is given: one degree, as Core Location's
  /// headingFilter.
  public static let defaultHeadingFilter = 1.0

  /// The heading request for `method`, nil if `method` is not one of them.
  static func decodeHeading(method: String, params: JSONObject) -> Result<Request, RequestError>? {
    let known: [String: [String]] = ["start-heading": ["filter"], "stop-heading": []]
    guard let allowed = known[method] else { return nil }
    for key in params.keys.sorted() where !allowed.contains(key) {
      let takes = allowed.isEmpty ? "no parameters" : allowed.map { "\"\($0)\"" }.joined(separator: ", ")
      return .failure(
        RequestError(.invalidParams, "unknown parameter \"\(key.prefix(64))\"; \(method) takes \(takes)"))
    }
    guard method == "start-heading" else { return .success(.stopHeading) }
    guard let v = params["filter"], !v.isNull else {
      return .success(.startHeading(filter: defaultHeadingFilter))
    }
    // A change of heading is at most 180 degrees: a larger filter would never let one through.
    guard let f = v.number, f.isFinite, (0.0...180.0).contains(f) else {
      return .failure(
        RequestError(
          .invalidParams,
          "\"filter\" must be the degrees the heading must turn before the next event, 0 (every reading) to 180"
        ))
    }
    return .success(.startHeading(filter: f))
  }
}
