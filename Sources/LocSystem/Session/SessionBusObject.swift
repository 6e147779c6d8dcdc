import CLocBusShim
import CSystemd
import LocCore

/// An object locd-session serves on the session bus: its vtable (CLocBusShim/session.c)
/// forwards every method call, property read and property write here, with the object as
/// userdata (`BusObject`).
class SessionBusObject: BusObject {
  /// Serves `interface` with `vtable` at `path` on `connection`.
  override func register(on connection: BusConnection, interface: String, vtable: BusVTable) throws(Errno) {
    SessionBusObject.installHandlers()
    try super.register(on: connection, interface: interface, vtable: vtable)
  }

  /// A method call; the default refuses it.
  func call(_ method: locshim_session_method, _ message: BusMessage, error: BusErrorReturn) -> Int32 {
    error.set(BusError.Name.failed, "not supported")
  }

  /// A property read: append the value to `reply`, or set `error`.
  func get(_ property: String, into reply: BusMessage, error: BusErrorReturn) -> Int32 {
    error.set(BusError.Name.failed, "no such property")
  }

  /// A property write: read the value from `value`, or set `error`.
  func set(_ property: String, value: BusMessage, error: BusErrorReturn) -> Int32 {
    error.set(BusError.Name.failed, "read-only property")
  }

  /// Registers the three forwarding functions with the C tables, once per process.
  private static let handlersInstalled: Bool = {
    locshim_session_set_handlers(
      { method, call, userdata, error in
        guard let call, let userdata else { return -Errno.invalidArgument }
        let object = Unmanaged<SessionBusObject>.fromOpaque(userdata).takeUnretainedValue()
        return withExtendedLifetime(object) {
          object.call(method, BusMessage(retaining: call), error: BusErrorReturn(error))
        }
      },
      { property, raw, userdata, error in
        guard let property, let raw, let userdata else { return -Errno.invalidArgument }
        let object = Unmanaged<SessionBusObject>.fromOpaque(userdata).takeUnretainedValue()
        return object.get(
          String(cString: property), into: BusMessage(retaining: raw), error: BusErrorReturn(error))
      },
      { property, raw, userdata, error in
        guard let property, let raw, let userdata else { return -Errno.invalidArgument }
        let object = Unmanaged<SessionBusObject>.fromOpaque(userdata).takeUnretainedValue()
        return object.set(
          String(cString: property), value: BusMessage(retaining: raw), error: BusErrorReturn(error))
      })
    return true
  }()

  static func installHandlers() { _ = handlersInstalled }
}

/// darkman's object (decision 0065): nl.whynothugo.darkman at /nl/whynothugo/darkman, its Mode
/// property ("light" or "dark", readable and writable) and its ModeChanged signal, as darkman
/// serves them (Tests/Fixtures/darkman/dbus-api.xml), so darkman's command, its clients and the
/// editor plugins that follow it follow locd.
final class DarkmanObject: SessionBusObject {
  static let name = "nl.whynothugo.darkman"
  static let objectPath = "/nl/whynothugo/darkman"
  static let interface = "nl.whynothugo.darkman"

  /// The mode to show.
  let mode: () -> LightDarkMode
  /// A write of Mode: the mode written; why it is refused, if it is.
  let written: (LightDarkMode) -> String?

  init(mode: @escaping () -> LightDarkMode, written: @escaping (LightDarkMode) -> String?) {
    self.mode = mode
    self.written = written
    super.init(path: DarkmanObject.objectPath)
  }

  /// Serves the interface on `connection`.
  func register(on connection: BusConnection) throws(Errno) {
    try register(on: connection, interface: DarkmanObject.interface, vtable: locshim_session_darkman_vtable())
  }

  override func get(_ property: String, into reply: BusMessage, error: BusErrorReturn) -> Int32 {
    guard property == "Mode" else { return super.get(property, into: reply, error: error) }
    do { try reply.append(.string(mode().rawValue)) } catch { return -error.code }
    return 1
  }

  override func set(_ property: String, value: BusMessage, error: BusErrorReturn) -> Int32 {
    guard property == "Mode" else { return super.set(property, value: value, error: error) }
    // darkman refuses anything but its two words (InvalidArgs).
    guard let text = try? value.readText(), let m = LightDarkMode(rawValue: text) else {
      return error.set(BusError.Name.invalidArgs, "Mode is \"light\" or \"dark\"")
    }
    if let problem = written(m) { return error.set(BusError.Name.failed, problem) }
    return 1
  }

  /// ModeChanged(mode) and PropertiesChanged of Mode, on `connection`.
  func announce(_ m: LightDarkMode, on connection: BusConnection) throws(Errno) {
    let signal = try BusMessage.signal(
      on: connection, path: DarkmanObject.objectPath, interface: DarkmanObject.interface,
      member: "ModeChanged")
    try signal.append(.string(m.rawValue))
    try signal.send(on: connection, to: nil)
    try connection.emitPropertiesChanged(
      path: DarkmanObject.objectPath, interface: DarkmanObject.interface, ["Mode"])
  }
}

/// The desktop portal's Settings backend (decision 0065): org.freedesktop.impl.portal.Settings
/// at /org/freedesktop/portal/desktop under org.freedesktop.impl.portal.desktop.locd (the
/// .portal file's DBusName), with one setting: org.freedesktop.appearance color-scheme, a `u`
/// (1 dark, 2 light, 0 no preference; the interface XML of xdg-desktop-portal 1.16).
final class PortalSettingsObject: SessionBusObject {
  static let name = "org.freedesktop.impl.portal.desktop.locd"
  static let objectPath = "/org/freedesktop/portal/desktop"
  static let interface = "org.freedesktop.impl.portal.Settings"
  static let namespace = "org.freedesktop.appearance"
  static let key = "color-scheme"
  /// The interface's version (1 in xdg-desktop-portal 1.16).
  static let version: UInt32 = 1
  /// Most namespaces read from one ReadAll (an app asks for one or two).
  static let maxNamespaces = 64

  /// The color-scheme to answer.
  let colorScheme: () -> UInt32

  init(colorScheme: @escaping () -> UInt32) {
    self.colorScheme = colorScheme
    super.init(path: PortalSettingsObject.objectPath)
  }

  /// Serves the interface on `connection`.
  func register(on connection: BusConnection) throws(Errno) {
    try register(
      on: connection, interface: PortalSettingsObject.interface, vtable: locshim_session_settings_vtable())
  }

  override func get(_ property: String, into reply: BusMessage, error: BusErrorReturn) -> Int32 {
    guard property == "version" else { return super.get(property, into: reply, error: error) }
    do { try reply.append(.uint32(PortalSettingsObject.version)) } catch { return -error.code }
    return 1
  }

  override func call(_ method: locshim_session_method, _ message: BusMessage, error: BusErrorReturn) -> Int32
  {
    do {
      switch method {
      case LOCSHIM_SESSION_READ:
        let namespace = try message.readText()
        let key = try message.readText()
        guard namespace == PortalSettingsObject.namespace, key == PortalSettingsObject.key else {
          // What xdg-desktop-portal's own backends answer for a key they do not have; the
          // frontend then asks the next backend.
          return error.set("org.freedesktop.portal.Error.NotFound", "Requested setting not found")
        }
        let reply = try message.reply()
        try reply.appendVariant(.uint32(colorScheme()))
        try reply.sendOnItsConnection()
      case LOCSHIM_SESSION_READ_ALL:
        var patterns: [String] = []
        try message.enter(BusMessage.Code.array, "s")
        while let p = try message.readNextText("read as") {
          guard patterns.count < PortalSettingsObject.maxNamespaces else {
            return error.set(
              BusError.Name.limitsExceeded, "at most \(PortalSettingsObject.maxNamespaces) namespaces")
          }
          patterns.append(p)
        }
        try message.exit()
        let reply = try message.reply()
        try reply.open(BusMessage.Code.array, "{sa{sv}}")
        if PortalSettingsObject.matches(PortalSettingsObject.namespace, patterns) {
          try reply.open(BusMessage.Code.dictEntry, "sa{sv}")
          try reply.append(.string(PortalSettingsObject.namespace))
          try reply.appendProperties([(PortalSettingsObject.key, .uint32(colorScheme()))])
          try reply.close()
        }
        try reply.close()
        try reply.sendOnItsConnection()
      default:
        return super.call(method, message, error: error)
      }
    } catch {
      return -error.code
    }
    return 1
  }

  /// Whether `namespace` is asked for by `patterns`: every namespace for none or an empty one;
  /// else one equal to it, or ending in `.*` over a prefix of it (the interface XML's globbing,
  /// "only for trailing sections").
  static func matches(_ namespace: String, _ patterns: [String]) -> Bool {
    if patterns.isEmpty || patterns.contains("") { return true }
    return patterns.contains { p in
      if p.hasSuffix(".*") { return namespace.hasPrefix(String(p.dropLast(1))) }
      return p == namespace
    }
  }

  /// SettingChanged(org.freedesktop.appearance, color-scheme, <value>) on `connection`.
  func announce(_ value: UInt32, on connection: BusConnection) throws(Errno) {
    let signal = try BusMessage.signal(
      on: connection, path: PortalSettingsObject.objectPath, interface: PortalSettingsObject.interface,
      member: "SettingChanged")
    try signal.append(.string(PortalSettingsObject.namespace))
    try signal.append(.string(PortalSettingsObject.key))
    try signal.appendVariant(.uint32(value))
    try signal.send(on: connection, to: nil)
  }
}
