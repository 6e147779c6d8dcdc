/// The Wi-Fi scene a lookup stands for: the BSSIDs of every access point seen that may be
/// sent (`WifiAccessPoint.exclusion` leaves the rest out), whatever their signals. A laptop
/// that moved sees other networks; one at rest sees the same ones with wandering signals and
/// now and then one more or one less. `change(from:)` tells the two apart (decision 0066).
public struct WifiScene: Sendable, Hashable {
  /// The mappable BSSIDs seen.
  public private(set) var bssids: Set<[UInt8]>

  /// The scene of a scan's access points.
  public init(_ scan: [WifiAccessPoint]) {
    bssids = Set(scan.lazy.filter { $0.exclusion == nil }.map(\.bssid))
  }

  /// The share of the networks of either scene that are not in both (the Jaccard distance of
  /// the two sets): 0 for the same networks, 1 for none in common. Two empty scenes are the
  /// same.
  public func change(from other: WifiScene) -> Double {
    let union = bssids.union(other.bssids).count
    guard union > 0 else { return 0 }
    return Double(union - bssids.intersection(other.bssids).count) / Double(union)
  }

  /// A change at least this large is a move: a third of the networks came or went. One
  /// network appearing beside three (a neighbour's router switched on, a phone's hotspot is
  /// never mappable) is a change of 1/4 and no move; walking into another building replaces
  /// most of them (a change near 1). Between the two, a third: a lookup asks the service
  /// again only when its answer could be another place, and the cache answers a scene seen
  /// before without sending anything.
  public static let moveThreshold = 1.0 / 3.0

  /// Whether going from `other` to `self` is a move (`moveThreshold`).
  public func moved(from other: WifiScene) -> Bool { change(from: other) >= Self.moveThreshold }
}
