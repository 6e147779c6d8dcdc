import Foundation
import LocCore

/// What `geoclue-probe.py watch` (Tests/Peers) has printed so far, read as it goes: every
/// line as JSON, its LocationUpdated signals, the values of Active it saw change, and the
/// coordinates a signal carried, compared with the replayed position and the reduced cell's.
struct ProbeWatch {
  let peer: LinePeer

  /// The lines printed so far, as JSON.
  var messages: [JSON] { peer.text.split(separator: "\n").compactMap { try? JSON.parse(String($0)) } }

  /// The LocationUpdated signals, in order.
  var updates: [JSON] { messages.filter { $0["signal"]?.string == "LocationUpdated" } }

  /// Active as each PropertiesChanged gave it, in order.
  var actives: [Bool] {
    messages.compactMap { m -> Bool? in
      guard case .bool(let active)? = m["changed"]?["Active"] else { return nil }
      return active
    }
  }

  /// Polls `condition` (15 s at most); whether it held.
  func waitUntil(_ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(15)
    while !condition() && Date() < deadline { usleep(20_000) }
    return condition()
  }

  /// The replayed position (OsloReplay), as a signal carries it at full accuracy.
  static let full = (OsloReplay.latitude, OsloReplay.longitude)

  /// The reduced grid's `centre`, as a signal carries it at reduced accuracy.
  static func cell(_ centre: Coordinate) -> (Double, Double) {
    (centre.latitude.value, centre.longitude.value)
  }

  /// The coordinates a signal carried.
  static func at(_ m: JSON) -> (Double, Double)? {
    guard let lat = m["latitude"]?.number, let lon = m["longitude"]?.number else { return nil }
    return (lat, lon)
  }

  /// Whether `a` is `b` (to 1e-9 degrees).
  static func same(_ a: (Double, Double)?, _ b: (Double, Double)) -> Bool {
    guard let a else { return false }
    return abs(a.0 - b.0) < 1e-9 && abs(a.1 - b.1) < 1e-9
  }
}
