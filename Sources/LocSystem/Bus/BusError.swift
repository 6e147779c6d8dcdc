import CSystemd

/// A D-Bus error: its name ("org.freedesktop.DBus.Error.AccessDenied") and text, as a peer
/// answered a call with it (`BusMessage.error`) or as locd answers one. Failures of sd-bus on
/// this side are `Errno`s naming the sd-bus call, as system calls' are.
struct BusError: Error, Hashable, CustomStringConvertible {
  /// The error name.
  var name: String
  /// The human-readable text (may be empty).
  var message: String

  /// "Name: text", the way locd logs and reports it.
  var description: String { "\(name): \(message)" }

  /// Error names locd answers with (the D-Bus specification and GeoClue's use of them).
  enum Name {
    /// The caller may not do this (GeoClue: G_DBUS_ERROR_ACCESS_DENIED).
    static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    /// Something failed (G_DBUS_ERROR_FAILED).
    static let failed = "org.freedesktop.DBus.Error.Failed"
    /// A limit was reached.
    static let limitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"
    /// An argument is not acceptable.
    static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    /// The caller went away before the answer (G_DBUS_ERROR_DISCONNECTED).
    static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
  }
}

/// The error out-parameter sd-bus hands a method or property callback of an exported object:
/// setting it makes sd-bus answer the call with that error.
struct BusErrorReturn {
  let raw: UnsafeMutablePointer<sd_bus_error>?

  /// Wraps the parameter sd-bus passed.
  init(_ raw: UnsafeMutablePointer<sd_bus_error>?) { self.raw = raw }

  /// Sets the error `name` with `text` and returns what the callback returns so that sd-bus
  /// answers with it (sd_bus_error_set(3)).
  func set(_ name: String, _ text: String) -> Int32 {
    sd_bus_error_set(raw, name, text)
  }
}

/// Why something on the bus did not work, in words fit for a log line or an error reply.
struct BusProblem: Error, CustomStringConvertible {
  /// The explanation.
  var description: String
  init(_ description: String) { self.description = description }
}
