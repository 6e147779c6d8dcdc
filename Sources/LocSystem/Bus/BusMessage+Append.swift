import CSystemd

/// Building messages: values appended, calls and signals made, calls answered.
extension BusMessage {
  /// A value as the bus carries it.
  enum Value {
    case bool(Bool)
    case uint32(UInt32)
    case double(Double)
    case string(String)
    case objectPath(String)
    /// `(tt)`: GeoClue's Timestamp.
    case timestamp(UInt64, UInt64)
    /// `ay`: ModemManager's InjectAssistanceData.
    case bytes([UInt8])

    /// The value's signature.
    var signature: String {
      switch self {
      case .bool: return "b"
      case .uint32: return "u"
      case .double: return "d"
      case .string: return "s"
      case .objectPath: return "o"
      case .timestamp: return "(tt)"
      case .bytes: return "ay"
      }
    }
  }

  /// Appends `value` (sd_bus_message_append_basic(3), containers with
  /// sd_bus_message_open_container(3)).
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
    case .bytes(let bytes):
      r = bytes.withUnsafeBytes { sd_bus_message_append_array(raw, Code.byte, $0.baseAddress, $0.count) }
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

  /// Opens a container `code` holding `contents` to append into (sd_bus_message_open_container(3)).
  func open(_ code: CChar, _ contents: String) throws(Errno) {
    _ = try Syscall.systemd(
      "sd_bus_message_open_container \(contents)", sd_bus_message_open_container(raw, code, contents))
  }

  /// Closes the container being appended into (sd_bus_message_close_container(3)).
  func close() throws(Errno) {
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
    on connection: BusConnection, destination: String, path: String, interface: String, member: String
  ) throws(Errno) -> BusMessage {
    var m: OpaquePointer? = nil
    let r = sd_bus_message_new_method_call(try connection.handle(), &m, destination, path, interface, member)
    guard r >= 0, let m else { throw Errno(call: "sd_bus_message_new_method_call \(member)", code: -r) }
    return BusMessage(adopting: m)
  }

  /// A new signal `member` of `interface` from `path` (sd_bus_message_new_signal(3)).
  static func signal(on connection: BusConnection, path: String, interface: String, member: String)
    throws(Errno) -> BusMessage
  {
    var m: OpaquePointer? = nil
    let r = sd_bus_message_new_signal(try connection.handle(), &m, path, interface, member)
    guard r >= 0, let m else { throw Errno(call: "sd_bus_message_new_signal \(member)", code: -r) }
    return BusMessage(adopting: m)
  }

  /// Sends this message on `connection` with `destination` set (nil: a broadcast signal;
  /// sd_bus_message_set_destination(3), sd_bus_send(3)).
  func send(on connection: BusConnection, to destination: String?) throws(Errno) {
    if let destination {
      _ = try Syscall.systemd(
        "sd_bus_message_set_destination", sd_bus_message_set_destination(raw, destination))
    }
    try connection.send(self)
  }

  // MARK: Answering a call

  /// A method return for this call, values appended (sd_bus_message_new_method_return(3)).
  func reply(_ values: [Value] = []) throws(Errno) -> BusMessage {
    var m: OpaquePointer? = nil
    let r = sd_bus_message_new_method_return(raw, &m)
    guard r >= 0, let m else { throw Errno(call: "sd_bus_message_new_method_return", code: -r) }
    let reply = BusMessage(adopting: m)
    for value in values { try reply.append(value) }
    return reply
  }

  /// Sends this message (a reply being made inside a method handler) on the connection it
  /// was made for (sd_bus_send(3) with no bus).
  func sendOnItsConnection() throws(Errno) {
    _ = try Syscall.systemd("sd_bus_send", sd_bus_send(nil, raw, nil))
  }

  /// Answers this call with `values`; a failure is logged by the caller, the call then
  /// times out on the caller's side.
  func answer(on connection: BusConnection, _ values: [Value] = []) throws(Errno) {
    try connection.send(try reply(values))
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
