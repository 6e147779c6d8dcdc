/// Why a region was refused or not found. Messages never contain coordinates.
public enum RegionError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The id is empty, too long or holds control characters.
  case invalidID(String)
  /// The radius is not a number, not finite, or outside 10 m...100 km.
  case invalidRadius(String)
  /// The centre's latitude or longitude is not a number or out of range.
  case invalidCentre(String)
  /// The dwell time is outside 1 s...24 h.
  case invalidDwell(String)
  /// The owner has a region with this id already.
  case duplicateID(RegionID)
  /// The owner has as many regions as it may.
  case tooManyForOwner(limit: Int)
  /// locd monitors as many regions as it may, over all owners.
  case tooManyInTotal(limit: Int)
  /// The owner's user monitors as many regions as one user may, over all its apps.
  case tooManyForUser(limit: Int)
  /// The owner has no region with this id.
  case notFound(RegionID)
  /// The user's apps file would be larger than `limit` bytes with the region in it.
  case storeFull(limit: Int)

  /// What went wrong, in words, for the client.
  public var description: String {
    switch self {
    case .invalidID(let why), .invalidRadius(let why), .invalidCentre(let why), .invalidDwell(let why):
      return why
    case .duplicateID(let id):
      return "a region with id \"\(id)\" is registered already; unregister it first"
    case .tooManyForOwner(let limit):
      return "this app monitors \(limit) regions, the most one app may"
    case .tooManyInTotal(let limit):
      return "locd monitors \(limit) regions over all apps, the most it may"
    case .tooManyForUser(let limit):
      return "this user's apps monitor \(limit) regions, the most one user's may"
    case .notFound(let id):
      return "no region with id \"\(id)\" is registered"
    case .storeFull(let limit):
      return "this user's apps file would be larger than \(limit) bytes with this region in it"
    }
  }
}
