import LocCore

/// The gpsd-compatible face's rules, without sockets (docs/GPSD.md, decision 0049): what each
/// client is (a plain session for root, locd and the read group; an app for anyone else),
/// its commands and watch policy, what each position the engine gives it becomes (TPV, SKY,
/// NMEA sentences), and what it is told when it may not have one. The adapter
/// (`GpsdServer`) frames the bytes and carries out the actions.
struct GpsdFace {
  private var clients: [SessionID: Client] = [:]
  private let environment: Environment
  /// The counters status shows.
  private(set) var counters = GpsdFaceCounters()
  /// The altitude and time of each device's last full fix, for `climb`.
  private var lastAltitude: [String: (time: Instant, altitude: Double, climb: Double?)] = [:]
  /// Each device's last full fix: the DOPs of a SKY sent when its satellites come.
  private var lastFix: [String: Fix] = [:]
  /// The TPV of each receiver cycle, as gpsd makes it, with what it keeps of the cycle before.
  private var cycles = GpsdTPV()
  /// The devices whose every cycle has come as a TPV (`cycle`): a full client gets their
  /// TPVs from there, never again from the engine's positions.
  private var cycleDevices: Set<String> = []

  init(environment: Environment) { self.environment = environment }

  /// Clients now.
  var clientCount: Int { clients.count }
  /// What client `id` is to the engine (nil: no such client).
  func standing(of id: SessionID) -> Standing? { clients[id]?.standing }
  /// Clients that watch.
  var watcherCount: Int { clients.values.filter(\.watch.enabled).count }
  /// Whether a client wants the receiver's sentences and may have them (full accuracy). Asked
  /// for every line a receiver sends, so it is kept, not worked out: every change of a client
  /// goes through `store` (or `disconnected`), which updates it.
  private(set) var wantsSentences = false

  /// Puts a client's new state in the table.
  private mutating func store(_ client: Client, as id: SessionID) {
    let old = clients.updateValue(client, forKey: id)
    if old?.readsSentences != client.readsSentences { recountSentenceReaders() }
  }

  private mutating func recountSentenceReaders() {
    wantsSentences = clients.values.contains(where: \.readsSentences)
  }

  /// A client connected: it is greeted, and its engine session opened.
  mutating func connected(
    _ id: SessionID, peer: Peer, access: AccessLevel, standing: Standing, unit: PeerUnit
  )
    -> [Action]
  {
    store(Client(standing: standing, accuracy: standing == .plain ? .full : nil), as: id)
    let hello: SessionHello
    switch standing {
    case .plain: hello = SessionHello(peer: peer, access: access, client: "gpsd", unit: unit)
    case .app(let app):
      hello = SessionHello(
        peer: peer, access: access, client: "gpsd:" + app.rawValue, app: app.rawValue, unit: unit)
    }
    return [.open(id, hello), .send(id, GpsdReport.version(release: environment.release) + GpsdReport.end)]
  }

  /// The client left (or was dropped).
  mutating func disconnected(_ id: SessionID) -> [Action] {
    guard let gone = clients.removeValue(forKey: id) else { return [] }
    if gone.readsSentences { recountSentenceReaders() }
    return [.close(id)]
  }

  /// A line of commands from the client (without its newline; overlong lines never come here).
  mutating func received(_ id: SessionID, line: Substring, at now: Instant) -> [Action] {
    var out: [Action] = []
    for part in line.split(separator: ";", omittingEmptySubsequences: true) {
      guard part.contains(where: { $0 != " " && $0 != "\t" && $0 != "\r" }) else { continue }
      counters.commands += 1
      switch GpsdCommand.parse(part) {
      case .failure(let refusal):
        counters.badCommands += 1
        out.append(.send(id, GpsdReport.error(refusal.message) + GpsdReport.end))
      case .success(let command): out += run(command, for: id, at: now)
      }
    }
    return out
  }

  /// A line longer than `GpsdCommand.maxBytes`.
  mutating func overlong(_ id: SessionID) -> [Action] {
    counters.badCommands += 1
    return [
      .send(
        id, GpsdReport.error("Command longer than \(GpsdCommand.maxBytes) bytes; skipped") + GpsdReport.end)
    ]
  }

  private mutating func run(_ command: GpsdCommand, for id: SessionID, at now: Instant) -> [Action] {
    guard var client = clients[id] else { return [] }
    switch command {
    case .version:
      return [.send(id, GpsdReport.version(release: environment.release) + GpsdReport.end)]
    case .devices:
      return [.send(id, devicesLine(for: client) + GpsdReport.end)]
    case .device:
      // gpsd answers `?DEVICE;` with a DEVICE report a device, not DEVICES.
      return visibleDevices(for: client).map {
        .send(id, GpsdReport.line(GpsdReport.device($0)) + GpsdReport.end)
      }
    case .poll:
      // gpsd's `active`: the devices this client watches that have sent data (none before
      // it watches, whatever is open).
      let active =
        client.watch.enabled
        ? visibleDevices(for: client).filter {
          $0.activated != nil && $0.seenData && (client.watch.device ?? $0.path) == $0.path
        }.count : 0
      return [
        .send(
          id,
          GpsdReport.poll(time: now, active: active, tpv: client.lastTPV, sky: client.lastSky)
            + GpsdReport.end)
      ]
    case .watch(let change):
      var out: [Action] = []
      let was = client.watch.enabled
      if let change { client.watch.apply(change) }
      store(client, as: id)
      if change != nil { out.append(.send(id, devicesLine(for: client) + GpsdReport.end)) }
      out.append(.send(id, GpsdReport.watch(client.watch) + GpsdReport.end))
      if client.watch.enabled != was { out += watching(id, client.standing, client.watch.enabled) }
      return out
    }
  }

  /// `DEVICES` as this client may see it: the sources for a plain session or an app that may
  /// have positions now; none for the others (a source's URI can name a host).
  private func devicesLine(for client: Client) -> String {
    GpsdReport.devices(visibleDevices(for: client))
  }

  private func visibleDevices(for client: Client) -> [GpsdDevice] {
    client.accuracy == nil ? [] : environment.devices()
  }

  /// The requests that start or stop the client's stream: a subscription for a plain
  /// session; for an app, the authorization asked for (its user's agent is asked if there is
  /// no decision), in use while it watches, updates started.
  private mutating func watching(_ id: SessionID, _ standing: Standing, _ on: Bool) -> [Action] {
    counters.watchChanges += 1
    let other = Requests.other
    switch (standing, on) {
    case (.plain, true): return [.request(id, other, .subscribe([.location]))]
    case (.plain, false): return [.request(id, other, .unsubscribe([.location]))]
    case (.app(let app), true):
      let purpose = "gpsd client '\(app)' watches the position"
      return [
        .request(id, other, .subscribe([.authorization])),
        .request(id, Requests.authorize, .requestAuthorization(.whenInUse, purpose: purpose)),
        .request(id, other, .setActivity(.foreground)),
        .request(id, other, .startUpdates(AppSession.Updates())),
      ]
    case (.app, false):
      return [.request(id, other, .stopUpdates), .request(id, other, .setActivity(.background))]
    }
  }

  /// The engine answered a request of the client's session.
  mutating func replied(_ id: SessionID, _ request: RequestID, _ result: Result<Response, RequestError>)
    -> [Action]
  {
    switch result {
    case .success(.appStatus(let report)): return authorized(id, report)
    case .success: return []
    case .failure(let error):
      return tell(id, "locd: \(error.message)")
    }
  }

  /// The app's authorization changed, or was reported. A client that may have positions is
  /// told nothing; one that may not is told why in an ERROR, and one whose grant was taken
  /// back (denied, reset, an Allow Once that ended) is told that its reports stop: its watch
  /// stays, and they resume if it is granted again.
  mutating func authorized(_ id: SessionID, _ report: AppStatusReport) -> [Action] {
    guard var client = clients[id], case .app(let app) = client.standing else { return [] }
    let a = report.authorization
    let had = client.accuracy != nil
    client.accuracy = a.allowsInUse ? a.accuracy : nil
    // Allowed: what it is told next (a refusal later) is news, even in the same words.
    if a.allowsInUse { client.told = nil }
    store(client, as: id)
    let who = "locd: \(app) (uid \(report.identity.key.uid))"
    let revoked = had && !a.allowsInUse
    let stop = revoked ? "; its reports stop until it is granted again" : ""
    let told: [Action]
    switch a.status {
    case .whenInUse, .always: return []
    case .denied, .restricted:
      let verb = revoked ? "may no longer have" : "may not have"
      told = tell(id, "\(who) \(verb) the location: \(a.status.rawValue)\(stop)")
    case .notDetermined:
      let what =
        revoked ? "had its authorization withdrawn and waits for a decision" : "waits for a decision"
      told = tell(id, "\(who) \(what): 'locctl apps grant \(app)' or the user's agent\(stop)")
    }
    if revoked && !told.isEmpty { counters.revocationsTold += 1 }
    return told
  }

  /// An ERROR the client is told once (until the words change).
  private mutating func tell(_ id: SessionID, _ message: String) -> [Action] {
    guard var client = clients[id], client.told != message else { return [] }
    client.told = message
    store(client, as: id)
    counters.refusalsTold += 1
    return [.send(id, GpsdReport.error(message) + GpsdReport.end)]
  }

  /// A position the engine gives these sessions (each at the accuracy it may have: `fix`
  /// is nil for reduced accuracy).
  mutating func located(_ resolved: ResolvedPosition, fix: Fix?, to ids: [SessionID]) -> [Action] {
    let device = resolved.position?.source ?? "locd"
    if let fix, resolved.tier == .fix, cycleDevices.contains(device) {
      return rebuiltSentences(fix, device: device, to: ids)
    }
    let full: JSONObject?
    let reduced: JSONObject?
    var fixForSentences: Fix? = nil
    if let fix, resolved.tier == .fix {
      full = GpsdReport.tpv(fix, device: device, climb: climb(fix, device: device))
      reduced = nil
      if !cycleDevices.contains(device) { lastFix[device] = fix }
      // A receiver's own sentences went out as they came (`relayed`): none rebuilt for it.
      if !environment.sendsSentences(device) { fixForSentences = fix }
    } else if fix == nil, resolved.tier == .fix, let p = resolved.position {
      full = nil
      reduced = GpsdReport.reducedTPV(p, device: device)
      fixForSentences = Fix(
        time: p.time, coordinate: p.coordinate, mode: .twoD, horizontalAccuracy: p.accuracy)
    } else {
      full = nil
      reduced = nil
    }
    let sky = full == nil ? nil : environment.skies().first { $0.source == device }
    let tpv = full ?? reduced ?? GpsdReport.noFix(device: device, time: resolved.position?.time)
    // Made once for every client of this position (100 watchers: one serialization, not 100).
    let tpvLine = JSON.object(tpv).serialized + GpsdReport.end
    let skyReport = sky.map { GpsdReport.sky($0, dops: fix, time: fix?.time) }
    let skyLine = skyReport.map { JSON.object($0).serialized + GpsdReport.end }
    let sentences = fixForSentences.map { NMEAWriter.cycle($0, sky: full != nil ? sky?.sky : nil) }
    let sentenceText = sentences?.joined()
    var out: [Action] = []
    // A receiver's cycles went to full clients as they came (`cycle`): the engine's cached
    // position when its fix is lost would be a second TPV that gpsd never sends (and with no
    // fix there are no sentences to rebuild).
    let cyclesSaidIt = full == nil && reduced == nil && !cycleDevices.isEmpty
    for id in ids {
      guard var client = clients[id], client.watch.enabled else { continue }
      if let wanted = client.watch.device, wanted != device { continue }
      if cyclesSaidIt, client.accuracy == .full { continue }
      // The engine's gate decided what this session gets: a fix only at full accuracy.
      if full != nil || reduced != nil { client.accuracy = full != nil ? .full : .reduced }
      client.lastTPV = tpv
      var sendSky = false
      if let sky, let skyReport, client.skySent[sky.source] != sky.time {
        client.skySent[sky.source] = sky.time
        client.lastSky = skyReport
        sendSky = true
      }
      store(client, as: id)
      if client.watch.wantsJSON {
        if sendSky, let skyLine {
          counters.skyReports += 1
          out.append(.send(id, skyLine))
        }
        counters.tpvReports += 1
        out.append(.send(id, tpvLine))
      }
      if client.watch.wantsSentences, let sentences, let sentenceText {
        counters.sentences += sentences.count
        out.append(.send(id, sentenceText))
      }
    }
    return out
  }

  /// A receiver's fix whose cycle went to the full JSON watchers already (`cycle`): every
  /// session here is given it at full accuracy, so a TPV or SKY of it would repeat what they
  /// had (none is made); its `nmea` watchers get the sentences rebuilt from it, when the
  /// receiver sends none of its own.
  private mutating func rebuiltSentences(_ fix: Fix, device: String, to ids: [SessionID]) -> [Action] {
    var to: [SessionID] = []
    for id in ids {
      guard let client = clients[id], client.watch.enabled else { continue }
      if let wanted = client.watch.device, wanted != device { continue }
      if client.accuracy != .full {
        var granted = client
        granted.accuracy = .full
        store(granted, as: id)
      }
      if client.watch.wantsSentences { to.append(id) }
    }
    guard !to.isEmpty, !environment.sendsSentences(device) else { return [] }
    let sentences = NMEAWriter.cycle(fix, sky: environment.skies().first { $0.source == device }?.sky)
    counters.sentences += sentences.count * to.count
    return [.sendAll(to, sentences.joined())]
  }

  /// A receiver cycle of `device` was decoded (every one, with or without a position, whether
  /// or not the engine takes it): its TPV, as gpsd sends one each cycle, goes to the JSON
  /// watchers of full accuracy (a plain session, an app whose decision is full accuracy), as
  /// the receiver's own sentences do (decision 0051); an app reduced or without a decision
  /// gets what the engine gives it.
  mutating func cycle(_ fix: Fix, device: String) -> [Action] {
    cycleDevices.insert(device)
    if fix.coordinate != nil { lastFix[device] = fix }
    let watchers = fullWatchers(of: device, json: true)
    let sky = environment.skies().first { $0.source == device }?.sky
    guard !watchers.isEmpty else {
      cycles.skip(fix, device: device, sky: sky)
      return []
    }
    let tpv = cycles.report(fix, device: device, sky: sky)
    var ids: [SessionID] = []
    ids.reserveCapacity(watchers.count)
    // Each client's `lastTPV` set in place: a loop over `clients` that wrote back would copy
    // the whole table every cycle.
    for index in watchers {
      clients.values[index].lastTPV = tpv
      ids.append(clients.keys[index])
    }
    counters.tpvReports += ids.count
    return [.sendAll(ids, JSON.object(tpv).serialized + GpsdReport.end)]
  }

  /// Where in `clients` the watchers of full accuracy of `device` are: those that want JSON
  /// (`json`) or sentences (not `json`).
  private func fullWatchers(of device: String, json: Bool) -> [Dictionary<SessionID, Client>.Index] {
    var found: [Dictionary<SessionID, Client>.Index] = []
    var index = clients.startIndex
    while index != clients.endIndex {
      let client = clients.values[index]
      if client.accuracy == .full, json ? client.watch.wantsJSON : client.watch.wantsSentences,
        client.watch.device.map({ $0 == device }) ?? true
      {
        found.append(index)
      }
      clients.formIndex(after: &index)
    }
    return found
  }

  /// One of a receiver's own sentences (checked: `RelayedSentence`), for the `nmea` and `raw`
  /// watchers of full accuracy (a reduced grant gets rebuilt sentences of its cell, an app
  /// without a decision none).
  mutating func relayed(_ sentence: String, device: String) -> [Action] {
    let watchers = fullWatchers(of: device, json: false)
    guard !watchers.isEmpty else { return [] }
    counters.relayedSentences += watchers.count
    return [.sendAll(watchers.map { clients.keys[$0] }, sentence)]
  }

  /// A source's satellites came (its sky on the engine's board is new): a SKY for each JSON
  /// watcher of full accuracy that has not had it, with or without a fix (gpsd sends SKY from
  /// the first GSV), with the DOPs of the source's last full fix.
  mutating func skyDecoded() -> [Action] {
    var out: [Action] = []
    for sky in environment.skies() {
      let watchers = fullWatchers(of: sky.source, json: true).filter {
        clients.values[$0].skySent[sky.source] != sky.time
      }
      guard !watchers.isEmpty else { continue }
      let report = GpsdReport.sky(sky, dops: lastFix[sky.source], time: nil)
      for index in watchers {
        clients.values[index].skySent[sky.source] = sky.time
        clients.values[index].lastSky = report
      }
      counters.skyReports += watchers.count
      out.append(.sendAll(watchers.map { clients.keys[$0] }, JSON.object(report).serialized + GpsdReport.end))
    }
    return out
  }

  /// The vertical speed from the device's previous full fix (gpsd reports `climb` for NMEA
  /// receivers the same way: from successive altitudes).
  private mutating func climb(_ fix: Fix, device: String) -> Double? {
    guard fix.mode == .threeD, let alt = fix.altitudeMSL?.value else { return nil }
    if let last = lastAltitude[device], last.time == fix.time { return last.climb }
    var climb: Double? = nil
    if let last = lastAltitude[device] {
      let dt = fix.time.seconds(since: last.time)
      if dt > 0, dt <= 10 { climb = (alt - last.altitude) / dt }
    }
    lastAltitude[device] = (fix.time, alt, climb)
    return climb
  }
}
