import LocCore

/// ModemManager's location sources, the bits of Modem.Location's Capabilities, Enabled and
/// Setup's `sources` (MMModemLocationSource, ModemManager-enums.h of ModemManager 1.20).
struct ModemLocationSources: OptionSet, Equatable {
  let rawValue: UInt32
  /// MM_MODEM_LOCATION_SOURCE_3GPP_LAC_CI.
  static let cellID = ModemLocationSources(rawValue: 1 << 0)
  /// MM_MODEM_LOCATION_SOURCE_GPS_RAW.
  static let gpsRaw = ModemLocationSources(rawValue: 1 << 1)
  /// MM_MODEM_LOCATION_SOURCE_GPS_NMEA: the traces locd decodes.
  static let gpsNMEA = ModemLocationSources(rawValue: 1 << 2)
  /// MM_MODEM_LOCATION_SOURCE_GPS_UNMANAGED.
  static let gpsUnmanaged = ModemLocationSources(rawValue: 1 << 4)
  /// MM_MODEM_LOCATION_SOURCE_AGPS_MSA and _MSB.
  static let agpsMSA = ModemLocationSources(rawValue: 1 << 5)
  static let agpsMSB = ModemLocationSources(rawValue: 1 << 6)
  /// Every bit that runs the GNSS engine: cleared to give the GPS back.
  static let gps: ModemLocationSources = [.gpsRaw, .gpsNMEA, .gpsUnmanaged, .agpsMSA, .agpsMSB]
}

/// One modem ModemManager lists (an object under /org/freedesktop/ModemManager1/Modem with
/// org.freedesktop.ModemManager1.Modem), what locd knows of it, where its GNSS stands, and
/// the decoder its NMEA traces go through.
final class ModemGNSS {
  /// Where locd's use of the modem's GNSS stands.
  enum Phase: Equatable {
    /// The modem has no Modem.Location, or its Capabilities lack GPS NMEA: reported, not used.
    case noGPS
    /// Not asked for yet (acquisition idle since the modem appeared).
    case off
    /// Setup was sent (`on`: with the GPS NMEA bit) and not answered yet.
    case settingUp(on: Bool)
    /// Setup with GPS NMEA succeeded: traces are decoded.
    case running
    /// Setup without the GPS bits succeeded: the modem's GPS is given back.
    case asleep
    /// Setup failed with this D-Bus error; tried again at `retryAt` (monotonic
    /// microseconds), when the modem's state changes, or when acquisition wakes again.
    case failed(String, retryAt: UInt64)
    /// A running gpsd holds the modem's GPS port open (`GpsdPortCheck`): the GPS is left to
    /// it, no Setup with GPS; looked at again at `retryAt`.
    case held(GpsdPortCheck.Holder, retryAt: UInt64)
    /// Assistance for the GNSS on its way (SetSuplServer, or the XTRA file downloaded and
    /// injected) before Setup with GPS.
    case assisting
  }

  /// The object path (`/org/freedesktop/ModemManager1/Modem/0`).
  let path: String
  /// Told apart from an earlier modem at the same path: a Setup reply for that one is dropped.
  let serial: Int
  /// EquipmentIdentifier (an IMEI: identifying, never logged above debug), Manufacturer,
  /// Model, and the names of its GPS ports (Ports of type MM_MODEM_PORT_TYPE_GPS, 5: "ttyUSB1").
  var identity = ModemFacts()
  var equipment: String { identity.equipment }
  var maker: String { identity.maker }
  /// Modem.State (MMModemState: 6 enabled and above can locate).
  var state: Int32 = 0
  /// Modem.Location's Capabilities and Enabled.
  var sources = (capabilities: ModemLocationSources(), enabled: ModemLocationSources())
  var capabilities: ModemLocationSources {
    get { sources.capabilities }
    set { sources.capabilities = newValue }
  }
  var enabled: ModemLocationSources {
    get { sources.enabled }
    set { sources.enabled = newValue }
  }
  /// SignalsLocation: whether Location changes are signalled (else GetLocation is polled).
  var signals = false
  /// GpsRefreshRate (seconds between the GPS values ModemManager publishes; 0: every one),
  /// and what it was before locd set it to 0, to be given back at stop.
  var refresh = RefreshRate()
  var phase = Phase.off
  /// Setup failures in a row (the first is logged as a warning, the rest at debug).
  var failures: Int {
    get { progress.failures }
    set { progress.failures = newValue }
  }
  /// Setup failures in a row and where GNSS assistance stands.
  var progress = ModemProgress()
  /// The last NMEA trace decoded: the same one again (a poll, a repeated signal) is skipped.
  var lastTrace: String?
  /// The serving cell (`ModemCells`): AccessTechnologies, the 3GPP string last read, the
  /// cell it gave, and whether locd turned the 3GPP source on.
  var cells = ModemCells()
  let live: LiveDecoder

  init(path: String, serial: Int, live: LiveDecoder) {
    self.path = path
    self.serial = serial
    self.live = live
  }

  /// The modem in logs and status: its object's number and what it says it is
  /// ("modem 0 (QUALCOMM INCORPORATED QUECTEL EG25)"); the equipment id only at debug.
  var name: String {
    let number = path.split(separator: "/").last.map(String.init) ?? path
    return maker.isEmpty ? "modem \(number)" : "modem \(number) (\(maker))"
  }

  /// Whether the GNSS can give NMEA traces.
  var hasGPS: Bool { capabilities.contains(.gpsNMEA) }
  /// Whether the modem can say its serving cell (3GPP LAC/CI).
  var hasCells: Bool { capabilities.contains(.cellID) }

  /// The sources for Setup: the enabled ones kept, GPS NMEA added (`on`) or every GPS bit
  /// cleared; 3GPP LAC/CI added while `cells` (network positioning on) and the modem has it,
  /// cleared otherwise if locd had turned it on.
  func setupSources(on: Bool, cells: Bool) -> ModemLocationSources {
    var s = on ? enabled.union(.gpsNMEA) : enabled.subtracting(.gps)
    if cells && hasCells {
      s.insert(.cellID)
    } else if self.cells.added {
      s.remove(.cellID)
    }
    return s
  }

  /// Whether the 3GPP source is wanted (`cells`) and not on yet.
  func lacksCells(_ cells: Bool) -> Bool { cells && hasCells && !enabled.contains(.cellID) }

  /// Takes Modem properties (EquipmentIdentifier, Manufacturer, Model, State); whether
  /// State changed.
  @discardableResult func takeModem(_ p: [String: BusMessage.PropertyValue]) -> Bool {
    if case .string(let s)? = p["EquipmentIdentifier"] { identity.equipment = s }
    if case .ports(let ports)? = p["Ports"] {
      identity.gpsPorts = ports.filter { $0.value == GpsdPortCheck.gpsPortType }.keys.sorted()
    }
    let manufacturer: String? = if case .string(let s)? = p["Manufacturer"] { s } else { nil }
    let model: String? = if case .string(let s)? = p["Model"] { s } else { nil }
    if manufacturer != nil || model != nil {
      identity.maker = [manufacturer ?? "", model ?? ""].filter { !$0.isEmpty }.joined(separator: " ")
    }
    if case .uint32(let n)? = p["AccessTechnologies"], n != cells.access {
      cells.access = n
      cells.text = nil
    }
    if case .int32(let n)? = p["State"], n != state {
      state = n
      return true
    }
    return false
  }

  /// Takes Modem.Location properties but Location (Capabilities, Enabled, SignalsLocation);
  /// a modem whose capabilities lack GPS NMEA is `noGPS`, one that gains it leaves `noGPS`.
  func takeLocation(_ p: [String: BusMessage.PropertyValue]) {
    if case .uint32(let n)? = p["Capabilities"] { capabilities = ModemLocationSources(rawValue: n) }
    if case .uint32(let n)? = p["Enabled"] { enabled = ModemLocationSources(rawValue: n) }
    if case .bool(let b)? = p["SignalsLocation"] { signals = b }
    if case .uint32(let n)? = p["GpsRefreshRate"] { refresh.now = n }
    if case .uint32(let n)? = p["SupportedAssistanceData"] { identity.assistanceTypes = n }
    if case .strings(let s)? = p["AssistanceDataServers"] { identity.assistanceServers = s }
    if !hasGPS {
      phase = .noGPS
    } else if phase == .noGPS {
      phase = .off
    }
  }
}

/// What a modem says it is and has.
struct ModemFacts {
  /// EquipmentIdentifier (identifying: debug only), and Manufacturer and Model together.
  var equipment = ""
  var maker = ""
  /// The names under /dev of its GPS ports (Ports of type 5).
  var gpsPorts: [String] = []
  /// SupportedAssistanceData (MMModemLocationAssistanceDataType: 1 is XTRA) and
  /// AssistanceDataServers (the URLs of the files InjectAssistanceData takes).
  var assistanceTypes: UInt32 = 0
  var assistanceServers: [String] = []

  /// The XTRA file's URL: the first server, if the modem takes XTRA data.
  var xtraServer: String? { assistanceTypes & 1 != 0 ? assistanceServers.first : nil }
}

/// Where a modem's Setup and assistance stand.
struct ModemProgress {
  var failures = 0
  var assistance = AssistanceStep.notTried
}

/// GNSS assistance for one modem (decision 0055): given once, again after a day (XTRA
/// files cover a few days); after a failure, again at a wake an hour later.
enum AssistanceStep: Equatable {
  case notTried
  /// Given (SUPL server set or file injected) at this monotonic instant (µs).
  case done(at: UInt64)
  /// Failed at this instant, with why (status shows it).
  case failed(String, at: UInt64)
}

/// What a modem says of its serving cell.
struct ModemCells {
  /// Modem.AccessTechnologies (MMModemAccessTechnology bits): the cell's radio.
  var access: UInt32 = 0
  /// The 3GPP string last read: the same one again is skipped.
  var text: String?
  /// The cell it gave (nil: none, or not readable).
  var tower: CellTower?
  /// Whether locd turned the 3GPP LAC/CI source on (so clears it at stop).
  var added = false
}

/// A modem's GpsRefreshRate: ModemManager publishes the GPS values at most once per that many
/// seconds, 30 unless a client set it (MM_LOCATION_GPS_REFRESH_TIME_SECS,
/// src/mm-iface-modem-location.c); 0 publishes each trace as the modem sends it.
struct RefreshRate {
  /// The rate the modem has now.
  var now: UInt32 = 0
  /// The rate before locd set 0 (nil: locd did not change it).
  var before: UInt32?
}
