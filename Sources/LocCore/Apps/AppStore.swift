/// The contents of apps.json in the state directory (mode 0600): each app's decision and
/// registrations, never a position (docs/decisions/0016-apps.md).
public struct AppStore: Sendable, Hashable {
  /// The format version written; readers reject other versions.
  public static let formatVersion = 1
  /// The records, in key order.
  public var records: [AppRecord]
  /// Stored regions that failed a request's checks when the file was read (a dwell no
  /// duration can hold, a radius out of range): left out, their app's record kept, so one
  /// bad region costs that region, not every user's decisions. Empty for a store made here.
  public var skippedRegions: [String] = []

  /// A store.
  public init(_ records: [AppRecord] = []) { self.records = records.sorted { $0.key < $1.key } }

  /// What was left out when the file was read, in one line for the log (nil: nothing).
  public var problem: String? {
    guard let first = skippedRegions.first else { return nil }
    let more = skippedRegions.count > 1 ? " (and \(skippedRegions.count - 1) more)" : ""
    return "stored regions left out: \(first)\(more)"
  }

  /// Why a store could not be read.
  public struct DecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var description: String
    /// An error saying `description`.
    public init(description: String) { self.description = description }
  }

  /// The file's bytes: one JSON object and a newline.
  public func encoded() -> [UInt8] {
    let apps: [JSON] = records.map { r in
      var o: JSONObject = [
        "uid": .int(Int(r.key.uid)), "app": .string(r.key.app.rawValue), "status": .string(r.status.rawValue),
        "accuracy": .string(r.accuracy.rawValue), "provisional": .bool(r.provisional),
        "upgradeAsked": .bool(r.upgradeAsked),
      ]
      o["decidedBy"] = .optional(r.decidedBy?.rawValue)
      o["decidedAt"] = r.decidedAt.map { .string($0.iso8601(fractionDigits: 0)) } ?? .null
      if let bound = r.decidedFor { o["decidedFor"] = .string(bound.rawValue) }
      o["purpose"] = .optional(r.purpose)
      o["registrations"] = .array(r.registrations.sorted().map { .string($0.rawValue) })
      o["firstSeen"] = .string(r.firstSeen.iso8601(fractionDigits: 0))
      o["lastUsed"] = r.lastUsed.map { .string($0.iso8601(fractionDigits: 0)) } ?? .null
      if let unit = r.launchUnit { o["launchUnit"] = .string(unit) }
      if !r.regions.isEmpty { o["regions"] = .array(r.regions.map(AppStore.encoded)) }
      return .object(o)
    }
    let o: JSONObject = ["version": .int(AppStore.formatVersion), "apps": .array(apps)]
    // Straight to bytes: a store with 10,000 regions is a megabyte, written once a loop turn.
    var bytes: [UInt8] = []
    JSON.object(o).write(to: &bytes)
    bytes.append(0x0A)
    return bytes
  }

  /// Reads a store's bytes; anything unexpected is an error, never a guess.
  public init(decoding bytes: [UInt8]) throws(DecodeError) {
    let json: JSON
    do { json = try JSON.parse(bytes, maxDepth: 6) } catch {
      throw DecodeError(description: "not valid JSON (\(error))")
    }
    guard let version = json["version"]?.number else { throw DecodeError(description: "no format version") }
    guard version == Double(AppStore.formatVersion) else {
      throw DecodeError(description: "unsupported format version \(version)")
    }
    guard case .array(let apps)? = json["apps"] else { throw DecodeError(description: "no \"apps\" array") }
    var records: [AppRecord] = []
    var seen = Set<AppKey>()
    var skipped: [String] = []
    for (i, value) in apps.enumerated() {
      let record = try AppStore.record(value, index: i, skipped: &skipped)
      guard seen.insert(record.key).inserted else {
        throw DecodeError(description: "apps[\(i)]: \(record.key) appears twice")
      }
      records.append(record)
    }
    self.init(records)
    skippedRegions = skipped
  }

  static func record(_ v: JSON, index i: Int, skipped: inout [String]) throws(DecodeError) -> AppRecord {
    func bad(_ what: String) -> DecodeError { DecodeError(description: "apps[\(i)]: \(what)") }
    func instant(_ key: String) throws(DecodeError) -> Instant? {
      guard let j = v[key], !j.isNull else { return nil }
      guard let s = j.string, let t = Instant(iso8601: s) else { throw bad("\(key) is not a time") }
      return t
    }
    guard let uid = v["uid"]?.number, uid >= 0, uid < 4_294_967_295, uid == uid.rounded() else {
      throw bad("uid is not a user id")
    }
    guard let text = v["app"]?.string, let app = AppID(text) else { throw bad("app is not an app id") }
    guard let status = v["status"]?.string.flatMap(AuthorizationStatus.init(rawValue:)), status != .restricted
    else { throw bad("status is not one of not-determined, denied, when-in-use, always") }
    guard let accuracy = v["accuracy"]?.string.flatMap(AccuracyAuthorization.init(rawValue:)) else {
      throw bad("accuracy is not full or reduced")
    }
    guard case .bool(let provisional)? = v["provisional"], case .bool(let upgradeAsked)? = v["upgradeAsked"]
    else { throw bad("provisional and upgradeAsked must be true or false") }
    guard let firstSeen = try instant("firstSeen") else { throw bad("firstSeen is missing") }
    var r = AppRecord(key: AppKey(uid: UInt32(uid), app: app), firstSeen: firstSeen)
    r.status = status
    r.accuracy = accuracy
    r.provisional = provisional && status == .always
    r.upgradeAsked = upgradeAsked
    if let by = v["decidedBy"], !by.isNull {
      guard let d = by.string.flatMap(AppRecord.Decider.init(rawValue:)) else {
        throw bad("decidedBy is unknown")
      }
      r.decidedBy = d
    }
    r.decidedAt = try instant("decidedAt")
    if let f = v["decidedFor"], !f.isNull {
      guard let text = f.string, let bound = AppIdentity.Verification(rawValue: text), bound != .claimed
      else {
        throw bad("decidedFor is unknown")
      }
      r.decidedFor = bound
    }
    r.lastUsed = try instant("lastUsed")
    if let p = v["purpose"], !p.isNull {
      guard let s = p.string, s.utf8.count <= AppAuthorizationMachine.maxPurposeBytes else {
        throw bad("purpose is too long")
      }
      r.purpose = s
    }
    guard case .array(let kinds)? = v["registrations"] else { throw bad("registrations is not an array") }
    for k in kinds {
      guard let kind = k.string.flatMap(EventKind.init(rawValue:)) else { throw bad("unknown registration") }
      r.registrations.insert(kind)
    }
    if let u = v["launchUnit"], !u.isNull {
      guard let unit = u.string, unit.utf8.count <= 255 else { throw bad("launchUnit is not a unit name") }
      r.launchUnit = unit
    }
    if let list = v["regions"] {
      guard case .array(let regions) = list else { throw bad("regions is not an array") }
      for (j, region) in regions.enumerated() {
        do throws(RegionError) { r.regions.append(try AppStore.region(region)) } catch {
          skipped.append("apps[\(i)] (\(r.key)): regions[\(j)]: \(error)")
        }
      }
    }
    return r
  }

  /// The bytes `region` takes in a store file (its object and the comma before it).
  public static func storedBytes(of region: CircularRegion) -> Int {
    encoded(region).serialized.utf8.count + 1
  }

  /// The most bytes one record takes without its regions: an app id of 255 bytes, a purpose
  /// of 512 bytes escaped to at most 6 bytes each (`\u0001`), a launch unit of 255 bytes,
  /// every registration, and the members' names and other values (under 400 bytes).
  public static let recordBytesBound = 4096

  /// The bytes of a file's frame (`{"version":1,"apps":[` ... `]}` and the newline).
  public static let frameBytes = 64

  /// A region as apps.json keeps it.
  static func encoded(_ region: CircularRegion) -> JSON {
    var o: JSONObject = [
      "id": .string(region.id.value), "latitude": .number(region.centre.latitude.value),
      "longitude": .number(region.centre.longitude.value), "radius": .number(region.radius.value),
      "entry": .bool(region.notifyOnEntry), "exit": .bool(region.notifyOnExit),
    ]
    if let dwell = region.dwell { o["dwell"] = .number(Double(dwell.components.seconds)) }
    return .object(o)
  }

  /// A stored region, checked as a request's would be.
  static func region(_ v: JSON) throws(RegionError) -> CircularRegion {
    guard let id = v["id"]?.string else { throw .invalidID("the id is missing") }
    var dwell: Duration? = nil
    if let d = v["dwell"], !d.isNull {
      guard let seconds = d.number else { throw .invalidDwell("the dwell time is not a number") }
      dwell = try CircularRegion.dwell(seconds: seconds)
    }
    var entry = true
    var exit = true
    if case .bool(let b)? = v["entry"] { entry = b }
    if case .bool(let b)? = v["exit"] { exit = b }
    return try CircularRegion(
      id: id, latitude: v["latitude"]?.number ?? .nan, longitude: v["longitude"]?.number ?? .nan,
      radius: v["radius"]?.number ?? .nan, notifyOnEntry: entry, notifyOnExit: exit, dwell: dwell)
  }
}
