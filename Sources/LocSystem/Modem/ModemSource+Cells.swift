import LocCore

/// The modems' serving cells (Modem.Location's 3GPP LAC/CI value) for the geolocation
/// lookups of `[Network]`: read only while network positioning is on, parsed by LocCore's
/// `ModemCellLocation`, handed to the engine (`SourceSink.cells`) whenever the set changes;
/// never logged above debug.
extension ModemSource {
  /// The 3GPP string of `modem`'s Location (nil: the entry is absent, so no cell now).
  func takeCell(_ text: String?, of modem: ModemGNSS) {
    guard wantsCells, modem.hasCells else {
      if modem.cells.tower != nil { forgetCell(of: modem) }
      return
    }
    guard text != modem.cells.text else { return }
    modem.cells.text = text
    let before = modem.cells.tower
    if let text {
      counters.cells.read += 1
      switch ModemCellLocation.parse(text, radio: CellRadio.of(accessTechnologies: modem.cells.access)) {
      case .success(let tower):
        modem.cells.tower = tower
        log(.debug, "\(modem.name): serving cell \(tower.key) (\(tower.radio?.rawValue ?? "radio unknown"))")
      case .failure(let problem):
        counters.cells.bad += 1
        modem.cells.tower = nil
        log(counters.cells.bad == 1 ? .notice : .debug, "\(modem.name): unreadable 3GPP location: \(problem)")
      }
    } else {
      modem.cells.tower = nil
    }
    if modem.cells.tower != before { sendCells() }
  }

  /// `modem`'s cell is no more (gone, or network positioning off).
  func forgetCell(of modem: ModemGNSS) {
    modem.cells.text = nil
    guard modem.cells.tower != nil else { return }
    modem.cells.tower = nil
    sendCells()
  }

  /// The cells of every modem, to the engine.
  func sendCells() {
    counters.cells.changes += 1
    sink.cells(sortedModems.compactMap(\.cells.tower), id)
  }
}

/// The serving cells a `modem:` source read.
struct CellCounters {
  /// 3GPP strings read (each one new), and the ones refused.
  var read = 0
  var bad = 0
  /// Times the set of cells handed to the engine changed.
  var changes = 0
}
