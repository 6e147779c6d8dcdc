import CSystemd

/// One D-Bus message (sd_bus_message), holding its own reference: a call being answered
/// (perhaps later), a reply, or a signal being built. The append and read methods wrap the
/// non-variadic sd-bus calls (sd_bus_message_append_basic(3), sd_bus_message_read_basic(3));
/// each failure is an `Errno` naming the call.
final class BusMessage {
  let raw: OpaquePointer

  /// Takes a new reference to `raw` (a message sd-bus lends to a callback).
  init(retaining raw: OpaquePointer) {
    self.raw = sd_bus_message_ref(raw)
  }

  /// Takes over the reference the caller holds (a message it created).
  init(adopting raw: OpaquePointer) {
    self.raw = raw
  }

  deinit { sd_bus_message_unref(raw) }

  /// The sender's unique name (":1.42").
  var sender: String? { sd_bus_message_get_sender(raw).map { String(cString: $0) } }
  /// The object path.
  var path: String? { sd_bus_message_get_path(raw).map { String(cString: $0) } }
  /// The member.
  var member: String? { sd_bus_message_get_member(raw).map { String(cString: $0) } }

  /// The error this message carries (a method error reply), as "Name: text".
  var errorText: String? {
    guard let error = sd_bus_message_get_error(raw) else { return nil }
    let name = error.pointee.name.map { String(cString: $0) } ?? "error"
    let text = error.pointee.message.map { String(cString: $0) } ?? ""
    return "\(name): \(text)"
  }

  /// The type codes of D-Bus (the D-Bus specification, "Type system").
  enum Code {
    static let string = CChar(UInt8(ascii: "s"))
    static let objectPath = CChar(UInt8(ascii: "o"))
    static let uint32 = CChar(UInt8(ascii: "u"))
    static let uint64 = CChar(UInt8(ascii: "t"))
    static let double = CChar(UInt8(ascii: "d"))
    static let bool = CChar(UInt8(ascii: "b"))
    static let variant = CChar(UInt8(ascii: "v"))
    static let array = CChar(UInt8(ascii: "a"))
    static let dictEntry = CChar(UInt8(ascii: "e"))
    static let structure = CChar(UInt8(ascii: "r"))
  }

  // MARK: Reading

  /// Reads a string (`s`) or object path (`o`).
  func readText(_ code: CChar = Code.string) throws(Errno) -> String {
    var pointer: UnsafePointer<CChar>? = nil
    _ = try Syscall.systemd("sd_bus_message_read_basic", sd_bus_message_read_basic(raw, code, &pointer))
    return pointer.map { String(cString: $0) } ?? ""
  }

  /// Reads a `b`.
  func readBool() throws(Errno) -> Bool {
    var value: Int32 = 0
    _ = try Syscall.systemd("sd_bus_message_read_basic", sd_bus_message_read_basic(raw, Code.bool, &value))
    return value != 0
  }

  /// Reads a `u`.
  func readUInt32() throws(Errno) -> UInt32 {
    var value: UInt32 = 0
    _ = try Syscall.systemd("sd_bus_message_read_basic", sd_bus_message_read_basic(raw, Code.uint32, &value))
    return value
  }

  /// Reads a `u` wrapped in a variant (a property value in a Properties.Get reply).
  func readVariantUInt32() throws(Errno) -> UInt32 {
    _ = try Syscall.systemd(
      "sd_bus_message_enter_container", sd_bus_message_enter_container(raw, Code.variant, "u"))
    let value = try readUInt32()
    _ = try Syscall.systemd("sd_bus_message_exit_container", sd_bus_message_exit_container(raw))
    return value
  }

  // MARK: Appending

  /// A value as the bus carries it.
  enum Value {
    case bool(Bool)
    case uint32(UInt32)
    case double(Double)
    case string(String)
    case objectPath(String)
    /// `(tt)`: GeoClue's Timestamp.
    case timestamp(UInt64, UInt64)

    /// The value's signature.
    var signature: String {
      switch self {
      case .bool: return "b"
      case .uint32: return "u"
      case .double: return "d"
      case .string: return "s"
      case .objectPath: return "o"
      case .timestamp: return "(tt)"
      }
    }
  }

  /// Appends `value`.
  func append(_ value: Value) throws(Errno) {
    let r: Int32
    switch value {
    case .bool(let b):
      var v: Int32 = b ? 1 : 0
      r = sd_bus_message_append_basic(raw, Code.bool, &v)
    case .uint32(var v):
      r = sd_bus_message_append_basic(raw, Code.uint32, &v)
    case .double(var v):
      r = sd_bus_message_append_basic(raw, Code.double, &v)
    case .string(let s):
      r = s.withCString { sd_bus_message_append_basic(raw, Code.string, $0) }
    case .objectPath(let s):
      r = s.withCString { sd_bus_message_append_basic(raw, Code.objectPath, $0) }
    case .timestamp(var seconds, var microseconds):
      _ = try Syscall.systemd(
        "sd_bus_message_open_container", sd_bus_message_open_container(raw, Code.structure, "tt"))
      _ = try Syscall.systemd(
        "sd_bus_message_append_basic", sd_bus_message_append_basic(raw, Code.uint64, &seconds))
      _ = try Syscall.systemd(
        "sd_bus_message_append_basic", sd_bus_message_append_basic(raw, Code.uint64, &microseconds))
      r = sd_bus_message_close_container(raw)
    }
    _ = try Syscall.systemd("sd_bus_message_append", r)
  }

  /// Appends `value` in a variant (`v`).
  func appendVariant(_ value: Value) throws(Errno) {
    _ = try Syscall.systemd(
      "sd_bus_message_open_container", sd_bus_message_open_container(raw, Code.variant, value.signature))
    try append(value)
    _ = try Syscall.systemd("sd_bus_message_close_container", sd_bus_message_close_container(raw))
  }

  /// Appends `a{sv}` with these entries.
  func appendProperties(_ entries: [(String, Value)]) throws(Errno) {
    _ = try Syscall.systemd(
      "sd_bus_message_open_container", sd_bus_message_open_container(raw, Code.array, "{sv}"))
    for (name, value) in entries {
      _ = try Syscall.systemd(
        "sd_bus_message_open_container", sd_bus_message_open_container(raw, Code.dictEntry, "sv"))
      try append(.string(name))
      try appendVariant(value)
      _ = try Syscall.systemd("sd_bus_message_close_container", sd_bus_message_close_container(raw))
    }
    _ = try Syscall.systemd("sd_bus_message_close_container", sd_bus_message_close_container(raw))
  }

  /// Appends the body of org.freedesktop.DBus.Properties.PropertiesChanged (`sa{sv}as`):
  /// `interface`, the changed properties with their values, no invalidated ones.
  func appendPropertiesChanged(interface: String, _ changed: [(String, Value)]) throws(Errno) {
    try append(.string(interface))
    try appendProperties(changed)
    _ = try Syscall.systemd(
      "sd_bus_message_open_container", sd_bus_message_open_container(raw, Code.array, "s"))
    _ = try Syscall.systemd("sd_bus_message_close_container", sd_bus_message_close_container(raw))
  }

  /// A new method call, to be filled before it is sent (sd_bus_message_new_method_call(3)).
  static func methodCall(
    on bus: OpaquePointer, destination: String, path: String, interface: String, member: String
  ) throws(Errno) -> BusMessage {
    var m: OpaquePointer? = nil
    let r = sd_bus_message_new_method_call(bus, &m, destination, path, interface, member)
    guard r >= 0, let m else { throw Errno(call: "sd_bus_message_new_method_call \(member)", code: -r) }
    return BusMessage(adopting: m)
  }

  /// A new signal `member` of `interface` from `path` (sd_bus_message_new_signal(3)).
  static func signal(on bus: OpaquePointer, path: String, interface: String, member: String) throws(Errno)
    -> BusMessage
  {
    var m: OpaquePointer? = nil
    let r = sd_bus_message_new_signal(bus, &m, path, interface, member)
    guard r >= 0, let m else { throw Errno(call: "sd_bus_message_new_signal \(member)", code: -r) }
    return BusMessage(adopting: m)
  }

  /// Sends this message on `bus` with `destination` set (nil: a broadcast signal).
  func send(on bus: OpaquePointer, to destination: String?) throws(Errno) {
    if let destination {
      _ = try Syscall.systemd(
        "sd_bus_message_set_destination", sd_bus_message_set_destination(raw, destination))
    }
    _ = try Syscall.systemd("sd_bus_send", sd_bus_send(bus, raw, nil))
  }

  // MARK: Answering a call

  /// A method return for this call, values appended.
  func reply(_ values: [Value] = []) throws(Errno) -> BusMessage {
    var m: OpaquePointer? = nil
    let r = sd_bus_message_new_method_return(raw, &m)
    guard r >= 0, let m else { throw Errno(call: "sd_bus_message_new_method_return", code: -r) }
    let reply = BusMessage(adopting: m)
    for value in values { try reply.append(value) }
    return reply
  }

  /// Answers this call with `values`; a failure is logged by the caller, the call then
  /// times out on the caller's side.
  func answer(on bus: OpaquePointer, _ values: [Value] = []) throws(Errno) {
    let reply = try reply(values)
    _ = try Syscall.systemd("sd_bus_send", sd_bus_send(bus, reply.raw, nil))
  }

  /// Answers this call with the error `name` and `text` (sd_bus_reply_method_error(3)).
  func fail(_ name: String, _ text: String) throws(Errno) {
    let r = name.withCString { n in
      text.withCString { t in
        var error = sd_bus_error(name: n, message: t, _need_free: 0)
        return sd_bus_reply_method_error(raw, &error)
      }
    }
    _ = try Syscall.systemd("sd_bus_reply_method_error", r)
  }
}

/// D-Bus error names locd answers with (the D-Bus specification and GeoClue's use of them).
enum BusError {
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

  /// Sets `error` (an sd-bus callback's out-parameter) and returns what the callback returns
  /// so that sd-bus answers with it (sd_bus_error_set(3)).
  static func set(_ error: UnsafeMutablePointer<sd_bus_error>?, _ name: String, _ text: String) -> Int32 {
    sd_bus_error_set(error, name, text)
  }
}

/// Why something on the bus did not work, in words fit for a log line or an error reply.
struct BusProblem: Error, CustomStringConvertible {
  /// The explanation.
  var description: String
  init(_ description: String) { self.description = description }
}
