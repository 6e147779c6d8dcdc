import CLocShim

/// One org.freedesktop.GeoClue2.Location object (CLIENT/Location/N): a location as it was
/// signalled to the client that owns it. Only that client's connection may read it, as in
/// GeoClue (gclue-service-location.c answers others AccessDenied).
final class GeoClueLocationObject: GeoClueBusObject {
  /// The owning client's connection.
  let owner: String
  /// The values served.
  var values: GeoClueLocationValues

  /// The interface name.
  static let interface = "org.freedesktop.GeoClue2.Location"

  init(path: String, owner: String, values: GeoClueLocationValues) {
    self.owner = owner
    self.values = values
    super.init(path: path)
  }

  /// The properties by name, in the interface's order.
  var properties: [(String, BusMessage.Value)] {
    let t = values.timestamp
    return [
      ("Latitude", .double(values.coordinate.latitude.value)),
      ("Longitude", .double(values.coordinate.longitude.value)),
      ("Accuracy", .double(values.accuracy)), ("Altitude", .double(values.altitude)),
      ("Speed", .double(values.speed)), ("Heading", .double(values.heading)),
      ("Description", .string(values.description)), ("Timestamp", .timestamp(t.seconds, t.microseconds)),
    ]
  }

  override func get(
    _ property: String, from sender: String?, into reply: BusMessage,
    error: BusErrorReturn
  ) -> Int32 {
    guard sender == owner else { return error.set(BusError.Name.accessDenied, "Access denied") }
    guard let value = properties.first(where: { $0.0 == property })?.1 else {
      return error.set(BusError.Name.failed, "no such property")
    }
    do { try reply.append(value) } catch { return -error.code }
    return 1
  }
}
