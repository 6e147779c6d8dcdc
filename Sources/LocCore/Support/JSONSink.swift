/// Where JSON is written a member or an element at a time: UTF-8 bytes for the wire
/// (`JSONBytes`) or a tree (`JSONTree`). A value written through it (`JSONWritable`) has
/// one encoding for both, so the line a reply goes out as and the tree its tests read are
/// the same by construction, and the wire is written without building the tree first.
///
/// The caller keeps the shape: `key` only inside an object and before each member's value,
/// every `open` closed. Keys are written as given (the caller knows them to be distinct).
public protocol JSONSink {
  mutating func openObject()
  mutating func closeObject()
  mutating func openArray()
  mutating func closeArray()
  /// The next member's key (inside an object).
  mutating func key(_ key: String)
  /// A whole value: a member's (after `key`), an element, or the top.
  mutating func value(_ value: JSON)
}

/// A value written through a `JSONSink`; its `JSON` is what the sink's tree holds.
public protocol JSONWritable {
  func write(to sink: inout some JSONSink)
}

extension JSONWritable {
  /// The value as a tree, written through `JSONTree`.
  public var writtenJSON: JSON {
    var tree = JSONTree()
    write(to: &tree)
    return tree.root
  }
}

extension JSONSink {
  /// A member.
  @inlinable public mutating func member(_ key: String, _ value: JSON) {
    self.key(key)
    self.value(value)
  }

  /// A member written by `value`.
  @inlinable public mutating func member(_ key: String, _ value: some JSONWritable) {
    self.key(key)
    value.write(to: &self)
  }

  /// A member written by `value`, or null.
  @inlinable public mutating func member(_ key: String, _ value: (some JSONWritable)?) {
    self.key(key)
    if let value { value.write(to: &self) } else { self.value(.null) }
  }

  /// An object whose members `body` writes.
  @inlinable public mutating func object(_ body: (inout Self) -> Void) {
    openObject()
    body(&self)
    closeObject()
  }

  /// An array of `items`, each written by `each`.
  @inlinable public mutating func array<C: Collection>(_ items: C, _ each: (inout Self, C.Element) -> Void) {
    openArray()
    for item in items { each(&self, item) }
    closeArray()
  }

  /// Named counters as one object, in order (as `WireFormat.counters` forms them).
  @inlinable public mutating func counters(_ list: [Counter]) {
    openObject()
    for c in list { member(c.name, .int(c.value)) }
    closeObject()
  }
}

/// Compact JSON as UTF-8, as `JSON.serialized` writes it.
public struct JSONBytes: JSONSink {
  /// What has been written.
  public var bytes: [UInt8]
  /// Whether the next member or element needs a comma before it.
  private var comma = false

  /// An empty buffer with room for `capacity` bytes.
  public init(capacity: Int = 256) {
    bytes = []
    bytes.reserveCapacity(capacity)
  }

  public mutating func openObject() {
    separate()
    bytes.append(UInt8(ascii: "{"))
    comma = false
  }

  public mutating func closeObject() {
    bytes.append(UInt8(ascii: "}"))
    comma = true
  }

  public mutating func openArray() {
    separate()
    bytes.append(UInt8(ascii: "["))
    comma = false
  }

  public mutating func closeArray() {
    bytes.append(UInt8(ascii: "]"))
    comma = true
  }

  public mutating func key(_ key: String) {
    separate()
    JSON.writeString(key, to: &bytes)
    bytes.append(UInt8(ascii: ":"))
    comma = false
  }

  public mutating func value(_ value: JSON) {
    separate()
    value.write(to: &bytes)
    comma = true
  }

  @inline(__always) private mutating func separate() {
    if comma { bytes.append(UInt8(ascii: ",")) }
  }
}

/// The tree of what is written.
public struct JSONTree: JSONSink {
  private enum Frame {
    case object([(key: String, value: JSON)], key: String?)
    case array([JSON])
  }

  private var open: [Frame] = []
  /// The value written, once every container is closed.
  public private(set) var root: JSON = .null

  public init() {}

  public mutating func openObject() { open.append(.object([], key: nil)) }

  public mutating func closeObject() {
    guard case .object(let members, _)? = open.popLast() else {
      preconditionFailure("JSONTree: closeObject without an open object")
    }
    put(.object(JSONObject(members: members)))
  }

  public mutating func openArray() { open.append(.array([])) }

  public mutating func closeArray() {
    guard case .array(let elements)? = open.popLast() else {
      preconditionFailure("JSONTree: closeArray without an open array")
    }
    put(.array(elements))
  }

  public mutating func key(_ key: String) {
    guard case .object(let members, nil)? = open.popLast() else {
      preconditionFailure("JSONTree: a key outside an object, or two keys in a row")
    }
    open.append(.object(members, key: key))
  }

  public mutating func value(_ value: JSON) { put(value) }

  private mutating func put(_ value: JSON) {
    switch open.popLast() {
    case nil: root = value
    case .object(var members, let key?)?:
      members.append((key: key, value: value))
      open.append(.object(members, key: nil))
    case .object(_, nil)?: preconditionFailure("JSONTree: a member value without its key")
    case .array(var elements)?:
      elements.append(value)
      open.append(.array(elements))
    }
  }
}
