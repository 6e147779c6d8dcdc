/// What BlueZ is to a `bluez:` source right now: the unique name owning org.bluez, the
/// adapter in use among BlueZ's objects and whether it is powered, and the epoch that every
/// change of them moves (answers to calls made before a change are ignored). Pure: the
/// source reads BlueZ's objects and signals and tells this what they said.
struct BlueZPresence {
  /// The adapter asked for (`hci1`), or nil for the default one.
  let adapterName: String?
  /// The unique name owning org.bluez; signals from anyone else are ignored.
  private(set) var owner: String?
  /// The adapter in use (`/org/bluez/hci0`).
  private(set) var adapterPath: String?
  /// Whether the adapter says it is powered.
  var adapterPowered = false
  /// Changes whenever BlueZ, the adapter or the connection changes.
  private(set) var epoch = 0

  init(adapterName: String?) {
    self.adapterName = adapterName
  }

  /// `name` now owns org.bluez: a new epoch.
  mutating func arrived(_ name: String) {
    owner = name
    epoch += 1
  }

  /// Nobody owns org.bluez any more (or the connection is gone): the adapter with it.
  mutating func gone() {
    owner = nil
    forgetAdapter()
  }

  /// `path` is the adapter in use from now on, powered or not.
  mutating func adopt(_ path: String, powered: Bool) {
    adapterPath = path
    adapterPowered = powered
  }

  /// The adapter is forgotten (gone, or BlueZ with it): a new epoch.
  mutating func forgetAdapter() {
    epoch += 1
    adapterPath = nil
    adapterPowered = false
  }

  /// The calls on their way no longer count (the adapter powered off and ended them).
  mutating func newEpoch() {
    epoch += 1
  }

  /// The adapter to use among `paths`: the one asked for, or the lowest-numbered (hci0
  /// before hci1 before hci10), which is what BlueZ's tools take as the default.
  func chooseAdapter(_ paths: [String]) -> String? {
    if let adapterName {
      return paths.contains("/org/bluez/\(adapterName)") ? "/org/bluez/\(adapterName)" : nil
    }
    let adapters = paths.filter { $0.hasPrefix("/org/bluez/hci") && !$0.dropFirst(11).contains("/") }
    return adapters.min { ($0.count, $0) < ($1.count, $1) }
  }

  /// Whether `path` is a device of the adapter in use (`ADAPTER/NAME`, one level below it).
  func isOurs(_ path: String) -> Bool {
    guard let adapterPath else { return false }
    let p = path.utf8
    let a = adapterPath.utf8
    guard p.count > a.count + 1, p.starts(with: a) else { return false }
    let rest = p.dropFirst(a.count)
    return rest.first == UInt8(ascii: "/") && !rest.dropFirst().contains(UInt8(ascii: "/"))
  }
}
