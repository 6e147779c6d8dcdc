import CLocShim

/// The org.freedesktop.GeoClue2.Manager object at /org/freedesktop/GeoClue2/Manager: anyone
/// may call it; each method goes to the service.
final class GeoClueManagerObject: GeoClueBusObject {
  unowned let service: GeoClueService

  init(service: GeoClueService) {
    self.service = service
    super.init(path: GeoClueService.managerPath)
  }

  override func call(
    _ method: locshim_geoclue_method, _ message: BusMessage, error: BusErrorReturn
  ) -> Int32 {
    switch method {
    case LOCSHIM_GEOCLUE_GET_CLIENT: service.getClient(message, reuse: true)
    case LOCSHIM_GEOCLUE_CREATE_CLIENT: service.getClient(message, reuse: false)
    case LOCSHIM_GEOCLUE_DELETE_CLIENT: service.deleteClient(message)
    case LOCSHIM_GEOCLUE_ADD_AGENT: service.addAgent(message)
    default: return error.set(BusError.Name.failed, "not supported")
    }
    return 1
  }

  override func get(
    _ property: String, from sender: String?, into reply: BusMessage,
    error: BusErrorReturn
  ) -> Int32 {
    let value: BusMessage.Value
    switch property {
    case "InUse": value = .bool(service.inUse)
    // GPS is what locd has; what a given client gets is its own business (RequestedAccuracyLevel).
    case "AvailableAccuracyLevel": value = .uint32(GeoClueAccuracyLevel.exact.rawValue)
    default: return error.set(BusError.Name.failed, "no such property")
    }
    do { try reply.append(value) } catch { return -error.code }
    return 1
  }
}

/// The agent of one user (org.freedesktop.GeoClue2.Agent at /org/freedesktop/GeoClue2/Agent
/// on its connection), registered with AddAgent: asked with AuthorizeApp, and its
/// MaxAccuracyLevel caps what that user's clients get (0 turns geolocation off for them).
final class GeoClueAgent {
  /// The agent's connection.
  let name: String
  /// The user it answers for (its own uid).
  let uid: UInt32
  /// The desktop id it gave to AddAgent.
  let desktopID: String
  /// MaxAccuracyLevel as the agent last said.
  var maxLevel: UInt32
  /// The watch on its PropertiesChanged.
  var match: BusMatch?

  /// The object path and interface agents serve (GeoClue 2.6's Agent interface XML).
  static let path = "/org/freedesktop/GeoClue2/Agent"
  static let interface = "org.freedesktop.GeoClue2.Agent"

  init(name: String, uid: UInt32, desktopID: String, maxLevel: UInt32) {
    self.name = name
    self.uid = uid
    self.desktopID = desktopID
    self.maxLevel = maxLevel
  }
}
