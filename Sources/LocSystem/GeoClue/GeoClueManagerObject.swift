import CLocBusShim
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
    case "InUse": value = .bool(service.face.inUse)
    // What the position in effect is good for; what a given client gets is its own business
    // (RequestedAccuracyLevel).
    case "AvailableAccuracyLevel":
      value = .uint32(GeoClueAccuracyLevel.available(for: service.handlers.provenance()).rawValue)
    default: return error.set(BusError.Name.failed, "no such property")
    }
    do { try reply.append(value) } catch { return -error.code }
    return 1
  }
}

/// The agent interface each user's agent serves (org.freedesktop.GeoClue2.Agent at
/// /org/freedesktop/GeoClue2/Agent on its connection, GeoClue 2.6's Agent interface XML),
/// registered with AddAgent; what the face keeps of an agent is `GeoClueFace.Agent`.
enum GeoClueAgent {
  /// The object path agents serve.
  static let path = "/org/freedesktop/GeoClue2/Agent"
  /// The interface.
  static let interface = "org.freedesktop.GeoClue2.Agent"
}
