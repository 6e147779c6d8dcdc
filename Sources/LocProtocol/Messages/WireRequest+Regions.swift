import LocCore

// The regions and visits methods' params (docs/PROTOCOL.md, "Regions and visits"):
// encoded for clients, decoded for the daemon, every member checked.
extension WireRequest {
  static func regionParams(_ r: Request) -> JSONObject {
    switch r {
    case .registerRegion(let region):
      var o: JSONObject = [
        "id": .string(region.id.value), "lat": .number(region.centre.latitude.value),
        "lon": .number(region.centre.longitude.value), "radius": .number(region.radius.value),
        "notify": .array(RegionView.words(region).map { .string($0) }),
      ]
      if let dwell = region.dwell { o["dwell"] = .number(dwell.seconds) }
      return o
    case .unregisterRegion(let id): return ["id": .string(id.value)]
    case .regionState(let id): return id.map { ["id": .string($0.value)] } ?? [:]
    case .monitorVisits(let on): return ["action": .string(on ? "start" : "stop")]
    case .setLaunchUnit(let unit): return ["unit": unit.map { .string($0) } ?? .null]
    default: return [:]
    }
  }

  /// The regions request for `method`, nil if `method` is not one of them.
  static func decodeRegion(method: String, params: JSONObject) -> Result<Request, RequestError>? {
    let known: [String: [String]] = [
      "register-region": ["id", "lat", "lon", "radius", "notify", "dwell"], "unregister-region": ["id"],
      "region-state": ["id"], "monitor-visits": ["action"], "set-launch-unit": ["unit"],
    ]
    guard let allowed = known[method] else { return nil }
    for key in params.keys.sorted() where !allowed.contains(key) {
      let takes = allowed.map { "\"\($0)\"" }.joined(separator: ", ")
      return .failure(
        RequestError(.invalidParams, "unknown parameter \"\(key.prefix(64))\"; \(method) takes \(takes)"))
    }
    do throws(RequestError) {
      return .success(try regionRequest(method, params))
    } catch {
      return .failure(error)
    }
  }

  private static func regionRequest(_ method: String, _ params: JSONObject) throws(RequestError) -> Request {
    func bad(_ message: String) -> RequestError { RequestError(.invalidParams, message) }
    func id(required: Bool) throws(RequestError) -> RegionID? {
      guard let v = params["id"], !(v.isNull && !required) else {
        if required { throw bad("\(method) needs \"id\": the region's id") }
        return nil
      }
      guard let s = v.string else { throw bad("\"id\" must be a string") }
      do throws(RegionError) { return try RegionID(s) } catch { throw bad(error.description) }
    }
    switch method {
    case "register-region":
      let regionID = try id(required: true)!
      func number(_ key: String, _ what: String) throws(RequestError) -> Double {
        guard let n = params[key]?.number else { throw bad("register-region needs \"\(key)\": \(what)") }
        return n
      }
      let lat = try number("lat", "the centre's latitude in degrees")
      let lon = try number("lon", "the centre's longitude in degrees")
      let radius = try number("radius", "the radius in metres, 10 to 100000")
      var notify: Set<String> = ["entry", "exit"]
      if let list = params["notify"] {
        guard case .array(let words) = list, words.count <= 3 else {
          throw bad("\"notify\" must be a list of \"entry\", \"exit\", \"dwell\"")
        }
        notify = []
        for w in words {
          guard let s = w.string, ["entry", "exit", "dwell"].contains(s) else {
            throw bad(
              "\"notify\" must be a list of \"entry\", \"exit\", \"dwell\", not \(w.serialized.prefix(32))")
          }
          notify.insert(s)
        }
      }
      var dwell: Duration? = nil
      if notify.contains("dwell") {
        let what = "\"notify\" has \"dwell\": \"dwell\" must give the dwell time in seconds, 1 to 86400"
        guard let d = params["dwell"]?.number else { throw bad(what) }
        do throws(RegionError) {
          dwell = try CircularRegion.dwell(seconds: d)
        } catch {
          throw bad(what)
        }
      } else if params["dwell"] != nil {
        throw bad("\"dwell\" is given without \"dwell\" in \"notify\"")
      }
      do throws(RegionError) {
        return .registerRegion(
          try CircularRegion(
            id: regionID, centre: try centre(lat, lon), radius: Meters(radius),
            notifyOnEntry: notify.contains("entry"), notifyOnExit: notify.contains("exit"), dwell: dwell))
      } catch {
        throw bad(error.description)
      }
    case "unregister-region": return .unregisterRegion(try id(required: true)!)
    case "region-state": return .regionState(try id(required: false))
    case "monitor-visits":
      switch params["action"]?.string {
      case "start"?: return .monitorVisits(true)
      case "stop"?: return .monitorVisits(false)
      default: throw bad("monitor-visits needs \"action\": \"start\" or \"stop\"")
      }
    default:  // set-launch-unit
      guard let v = params["unit"] else { throw bad("set-launch-unit needs \"unit\": a unit name, or null") }
      if v.isNull { return .setLaunchUnit(nil) }
      guard let s = v.string, s.utf8.count <= 255 else {
        throw bad("\"unit\" must be a unit name of at most 255 bytes")
      }
      return .setLaunchUnit(s)
    }
  }

  private static func centre(_ lat: Double, _ lon: Double) throws(RegionError) -> Coordinate {
    guard lat.isFinite, (-90.0...90.0).contains(lat) else {
      throw .invalidCentre("a region centre's latitude must be a number within -90...90")
    }
    guard lon.isFinite, (-180.0...180.0).contains(lon) else {
      throw .invalidCentre("a region centre's longitude must be a number within -180...180")
    }
    return Coordinate(lat: lat, lon: lon)!
  }
}
