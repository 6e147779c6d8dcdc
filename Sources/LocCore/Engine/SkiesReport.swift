/// Who reads satellites (decision 0069): the reason skies are assembled.
public enum SkyReader: String, Sendable, Hashable, CaseIterable {
  /// A session is subscribed to `sky` events (`locctl sky --watch`).
  case subscribers = "sky-subscribers"
  /// A `sky` request came in the last `SkyDemandMachine.askedFor` (`locctl sky`).
  case request = "sky-request"
  /// A gpsd-face client watches (SKY reports, the TPV's epx and epy, rebuilt GSV and GSA).
  case gpsdWatchers = "gpsd-watchers"
  /// `[NMEAOut] Enable=yes`: GSV and GSA are rebuilt from the sky for a source without them.
  case nmeaOut = "nmea-out"
}

/// Whether the sources assemble skies and why, as `status` shows it (`skies`): the engine
/// fills in its readers, the shell adds its faces' and says what the sources do.
public struct SkiesReport: Sendable, Hashable {
  /// Whether skies are assembled now: someone reads them.
  public var assembled: Bool
  /// Who reads them, in `SkyReader`'s order (none: skies are not assembled).
  public var readers: [SkyReader]
  /// Skies the sources assembled and handed in, since start.
  public var built: Int
  /// Until when the last `sky` request keeps them assembled (nil: no request within the window).
  public var askedUntil: Instant?
  /// `sky` requests waiting for the receivers' first skies.
  public var waiting: Int

  /// A report.
  public init(assembled: Bool, readers: [SkyReader], built: Int, askedUntil: Instant?, waiting: Int) {
    self.assembled = assembled
    self.readers = readers
    self.built = built
    self.askedUntil = askedUntil
    self.waiting = waiting
  }

  /// The report with the shell's readers added: assembled while anyone reads.
  public func adding(_ more: [SkyReader]) -> SkiesReport {
    var r = self
    let all = Set(readers + more)
    r.readers = SkyReader.allCases.filter(all.contains)
    r.assembled = !r.readers.isEmpty
    return r
  }
}
