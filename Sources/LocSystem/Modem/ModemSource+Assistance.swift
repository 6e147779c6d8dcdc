import LocCore

/// GNSS assistance before a modem's GPS starts (decision 0055), only while network
/// positioning is on: with `[Modem] SuplServer=`, SetSuplServer (and A-GPS MSB in Setup when
/// the modem has it); else, for a modem that takes XTRA data and names a server, the file
/// downloaded from the first server (`AssistanceDownload`) and given with
/// InjectAssistanceData. A failure is counted and shown; the GPS starts all the same.
extension ModemSource {
  /// Assistance is given again after a day (XTRA files cover a few), after a failure at a
  /// wake an hour later.
  static let assistanceRefreshMicroseconds: UInt64 = 86_400_000_000
  static let assistanceRetryMicroseconds: UInt64 = 3_600_000_000

  /// Whether `modem` is to be assisted before its GPS starts now.
  func wantsAssistance(_ modem: ModemGNSS) -> Bool {
    guard sink.now.networkOn(), sink.now.suplServer() != nil || modem.identity.xtraServer != nil else {
      return false
    }
    let now = loop.monotonicMicroseconds
    switch modem.progress.assistance {
    case .notTried: return true
    case .done(let at): return now >= at + Self.assistanceRefreshMicroseconds
    case .failed(_, let at): return now >= at + Self.assistanceRetryMicroseconds
    }
  }

  /// Starts the assistance of `modem`; Setup follows its end (`assisted`).
  func assist(_ modem: ModemGNSS) {
    modem.phase = .assisting
    if let server = sink.now.suplServer() {
      call(modem, "SetSuplServer", [.string(server)], what: "SUPL server \(server)")
    } else if let url = modem.identity.xtraServer {
      let download = helpers.download ?? AssistanceDownload(loop: loop)
      helpers.download = download
      counters.setup.assistance.downloads += 1
      log(.debug, "\(modem.name): fetching its XTRA assistance file from \(url)")
      let serial = modem.serial
      download.fetch(url) { [weak self] result in
        guard let self, let now = self.modems[modem.path], now.serial == serial else { return }
        switch result {
        case .success(let bytes):
          self.call(now, "InjectAssistanceData", [.bytes(bytes)], what: "XTRA file of \(bytes.count) bytes")
        case .failure(let problem):
          self.assisted(now, .failure(AssistanceProblem("download from \(url) failed: \(problem.detail)")))
        }
      }
    }
  }

  /// SetSuplServer or InjectAssistanceData on `modem`.
  private func call(_ modem: ModemGNSS, _ member: String, _ arguments: [BusMessage.Value], what: String) {
    guard let bus else { return }
    let serial = modem.serial
    do {
      try bus.call(
        destination: Self.busName, path: modem.path, interface: Self.locationInterface, member: member,
        arguments: arguments
      ) { [weak self] reply in
        guard let self, let now = self.modems[modem.path], now.serial == serial else { return }
        if let problem = reply.errorText {
          self.assisted(now, .failure(AssistanceProblem("\(member) failed: \(problem)")))
        } else {
          self.assisted(now, .success(what))
        }
      }
    } catch {
      assisted(modem, .failure(AssistanceProblem("\(member): \(error)")))
    }
  }

  /// The assistance of `modem` ended: the GPS is set up now, with or without it.
  private func assisted(_ modem: ModemGNSS, _ result: Result<String, AssistanceProblem>) {
    let now = loop.monotonicMicroseconds
    switch result {
    case .success(let what):
      counters.setup.assistance.given += 1
      modem.progress.assistance = .done(at: now)
      log(.info, "\(modem.name): GNSS assistance given (\(what))")
    case .failure(let problem):
      counters.setup.assistance.errors += 1
      modem.progress.assistance = .failed(problem.detail, at: now)
      log(
        counters.setup.assistance.errors == 1 ? .warning : .notice,
        "\(modem.name): no GNSS assistance (\(problem.detail)); the GPS starts without it")
    }
    if modem.phase == .assisting { modem.phase = .off }
    reconcile()
    report()
  }

  /// A SUPL server is set for A-GPS: the MSB source goes with GPS NMEA where the modem has it.
  func agpsWanted(_ modem: ModemGNSS) -> Bool {
    sink.now.networkOn() && sink.now.suplServer() != nil && modem.capabilities.contains(.agpsMSB)
  }
}

/// The assistance a `modem:` source gave its modems.
struct AssistanceCounters {
  /// XTRA files asked for, assistance given (SUPL server set or file injected), failures.
  var downloads = 0
  var given = 0
  var errors = 0
}
