import CSystemd

/// One D-Bus message (sd_bus_message), holding its own reference: a call being answered
/// (perhaps later), a reply, or a signal being built. The read methods here and the append
/// methods in BusMessage+Append wrap the non-variadic sd-bus calls
/// (sd_bus_message_read_basic(3), sd_bus_message_append_basic(3)); each failure is an
/// `Errno` naming the call.
final class BusMessage {
  let raw: OpaquePointer

  /// Takes a new reference to `raw` (a message sd-bus lends to a callback;
  /// sd_bus_message_ref(3)).
  init(retaining raw: OpaquePointer) {
    self.raw = sd_bus_message_ref(raw)
  }

  /// Takes over the reference the caller holds (a message it created).
  init(adopting raw: OpaquePointer) {
    self.raw = raw
  }

  deinit { sd_bus_message_unref(raw) }

  /// The sender's unique name (":1.42"; sd_bus_message_get_sender(3)).
  var sender: String? { sd_bus_message_get_sender(raw).map { String(cString: $0) } }
  /// The object path (sd_bus_message_get_path(3)).
  var path: String? { sd_bus_message_get_path(raw).map { String(cString: $0) } }
  /// The member (sd_bus_message_get_member(3)).
  var member: String? { sd_bus_message_get_member(raw).map { String(cString: $0) } }

  /// Whether the sender is `name` (a unique name), without making a string of it.
  func isFrom(_ name: String) -> Bool {
    guard let sender = sd_bus_message_get_sender(raw) else { return false }
    return CStrings.equal(sender, name)
  }

  /// The error this message carries, if it is a method error reply
  /// (sd_bus_message_get_error(3)).
  var error: BusError? {
    guard let error = sd_bus_message_get_error(raw) else { return nil }
    return BusError(
      name: error.pointee.name.map { String(cString: $0) } ?? "error",
      message: error.pointee.message.map { String(cString: $0) } ?? "")
  }

  /// The error this message carries, as "Name: text".
  var errorText: String? { error?.description }

  /// The sender of the call sd-bus is dispatching on this message's connection now
  /// (sd_bus_message_get_bus(3), sd_bus_get_current_message(3)): for a property reply being
  /// filled, the Get, GetAll or Set it answers.
  var currentSender: String? {
    guard let bus = sd_bus_message_get_bus(raw), let current = sd_bus_get_current_message(bus) else {
      return nil
    }
    return sd_bus_message_get_sender(current).map { String(cString: $0) }
  }

  /// The type codes of D-Bus (the D-Bus specification, "Type system").
  enum Code {
    static let string = CChar(UInt8(ascii: "s"))
    static let objectPath = CChar(UInt8(ascii: "o"))
    static let uint16 = CChar(UInt8(ascii: "q"))
    static let int16 = CChar(UInt8(ascii: "n"))
    static let uint32 = CChar(UInt8(ascii: "u"))
    static let int32 = CChar(UInt8(ascii: "i"))
    static let uint64 = CChar(UInt8(ascii: "t"))
    static let double = CChar(UInt8(ascii: "d"))
    static let bool = CChar(UInt8(ascii: "b"))
    static let byte = CChar(UInt8(ascii: "y"))
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

  /// Reads the next string of an array being read (`as`): nil at its end.
  func readNextText(_ what: String, _ code: CChar = Code.string) throws(Errno) -> String? {
    var pointer: UnsafePointer<CChar>? = nil
    guard try Syscall.systemd(what, sd_bus_message_read_basic(raw, code, &pointer)) > 0 else {
      return nil
    }
    return pointer.map { String(cString: $0) } ?? ""
  }

  /// Reads one fixed-size basic value of type `code` (sd_bus_message_read_basic(3)).
  private func readBasic<T: BitwiseCopyable>(_ code: CChar, _ zero: T) throws(Errno) -> T {
    var value = zero
    _ = try Syscall.systemd("sd_bus_message_read_basic", sd_bus_message_read_basic(raw, code, &value))
    return value
  }

  /// Reads a `b`.
  func readBool() throws(Errno) -> Bool { try readBasic(Code.bool, Int32(0)) != 0 }

  /// Reads a `d`.
  func readDouble() throws(Errno) -> Double { try readBasic(Code.double, Double(0)) }

  /// Reads a `u`.
  func readUInt32() throws(Errno) -> UInt32 { try readBasic(Code.uint32, UInt32(0)) }

  /// Reads the next `u` of an array being read (`au`): nil at its end.
  func readNextUInt32(_ what: String) throws(Errno) -> UInt32? {
    var value: UInt32 = 0
    guard try Syscall.systemd(what, sd_bus_message_read_basic(raw, Code.uint32, &value)) > 0 else {
      return nil
    }
    return value
  }

  /// Reads a `q`.
  func readUInt16() throws(Errno) -> UInt16 { try readBasic(Code.uint16, UInt16(0)) }

  /// Reads an `n`.
  func readInt16() throws(Errno) -> Int16 { try readBasic(Code.int16, Int16(0)) }

  /// Reads an `i`.
  func readInt32() throws(Errno) -> Int32 { try readBasic(Code.int32, Int32(0)) }

  /// Reads a `y`.
  func readByte() throws(Errno) -> UInt8 { try readBasic(Code.byte, UInt8(0)) }

  /// Reads an `ay` as it lies in the message, without copying (sd_bus_message_read_array(3));
  /// `body` gets the bytes, valid only while it runs.
  func readByteArray<T>(_ body: (UnsafeRawBufferPointer) -> T) throws(Errno) -> T {
    var pointer: UnsafeRawPointer? = nil
    var size = 0
    _ = try Syscall.systemd(
      "sd_bus_message_read_array", sd_bus_message_read_array(raw, Code.byte, &pointer, &size))
    return body(UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : size))
  }

  /// Reads a `u` wrapped in a variant (a property value in a Properties.Get reply).
  func readVariantUInt32() throws(Errno) -> UInt32 {
    _ = try Syscall.systemd(
      "sd_bus_message_enter_container", sd_bus_message_enter_container(raw, Code.variant, "u"))
    let value = try readUInt32()
    _ = try Syscall.systemd("sd_bus_message_exit_container", sd_bus_message_exit_container(raw))
    return value
  }

  /// Enters the container `code` holding `contents` (sd_bus_message_enter_container(3)):
  /// false at the end of the enclosing array. `what` names the step in an error.
  @discardableResult
  func enter(_ code: CChar, _ contents: String, _ what: String? = nil) throws(Errno) -> Bool {
    try Syscall.systemd(
      what ?? "sd_bus_message_enter_container \(contents)",
      sd_bus_message_enter_container(raw, code, contents))
      > 0
  }

  /// Leaves the container being read (sd_bus_message_exit_container(3)).
  func exit(_ what: String = "sd_bus_message_exit_container") throws(Errno) {
    _ = try Syscall.systemd(what, sd_bus_message_exit_container(raw))
  }

  /// Skips one value of `signature` (sd_bus_message_skip(3)).
  func skip(_ signature: String, _ what: String = "sd_bus_message_skip") throws(Errno) {
    _ = try Syscall.systemd(what, sd_bus_message_skip(raw, signature))
  }

  /// The signature inside the variant the read position is at (sd_bus_message_peek_type(3)).
  func variantContents() throws(Errno) -> String {
    var type: CChar = 0
    var contents: UnsafePointer<CChar>? = nil
    _ = try Syscall.systemd("sd_bus_message_peek_type", sd_bus_message_peek_type(raw, &type, &contents))
    guard type == Code.variant, let contents else {
      throw Errno(call: "expected a variant", code: Errno.badMessage)
    }
    return String(cString: contents)
  }
}
