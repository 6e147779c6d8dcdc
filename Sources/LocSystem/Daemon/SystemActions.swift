import LocCore

/// What locd asks of the rest of the system when the engine says so: units started and the
/// time zone set through systemd on the system bus, timer commands run as children, and
/// the receiver's time given to chrony.
final class SystemActions {
  /// StartUnit and SetTimezone; connected on first use.
  let bus: SystemBus
  /// The runner of timer commands; nil (commands disabled, said in the log) when children
  /// cannot be watched.
  var commands: CommandRunner?
  /// chrony's SOCK refclock, while `[Time] ChronySocket=` names one.
  var chrony: ChronyRefclock?
  /// The geolocation service's lookups (`[Network]`); made at the first.
  var geolocator: Geolocator?
  /// NetworkManager's Wi-Fi scans (`[Network]`); made at the first.
  var wifi: WifiScanner?

  init(bus: SystemBus) { self.bus = bus }
}
