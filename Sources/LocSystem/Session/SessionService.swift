import LocCore
import LocProtocol

/// locd-session, the per-user session service (decision 0065, docs/LIGHTDARK.md): it follows
/// the user's light/dark schedule on locd's socket (`LocdLink`) and serves it, on the user's
/// session bus, as darkman's interface (`DarkmanObject`) and the desktop portal's Settings
/// backend (`PortalSettingsObject`), and as darkman's dark-mode.d and light-mode.d scripts
/// (`ModeScripts`). What to show and when is `LightDarkFace`'s; this type only wires the parts
/// and carries out its outputs. It asks locd for the schedule, never for a position, and has
/// no timer of its own: between transitions it sleeps on two descriptors.
public final class SessionService {
  /// What `locd-session` was started with.
  public struct Options: Sendable {
    /// locd's socket.
    public var socketPath: String
    /// The configuration file (nil: $XDG_CONFIG_HOME/locd/session.conf, or
    /// ~/.config/locd/session.conf; a missing file is the defaults).
    public var configPath: String?
    /// Messages less severe than this are dropped.
    public var logLevel: LogLevel

    /// Options.
    public init(socketPath: String, configPath: String?, logLevel: LogLevel) {
      self.socketPath = socketPath
      self.configPath = configPath
      self.logLevel = logLevel
    }
  }

  private let options: Options
  private let loop: EventLoop
  private let logger: Logger
  private var config = SessionConfig()
  private var face = LightDarkFace()
  private var bus: BusConnection?
  private var darkman: DarkmanObject?
  private var portal: PortalSettingsObject?
  private var nameRequests: [BusNameRequest] = []
  private var scripts: ModeScripts?
  private var link: LocdLink?

  /// A service for `options` (nothing runs until `run`).
  public init(options: Options) throws(Errno) {
    self.options = options
    loop = try EventLoop()
    logger = Logger(level: options.logLevel, identifier: "locd-session")
  }

  /// The configuration file in effect.
  public static func configPath(_ given: String?) -> String {
    if let given { return given }
    if let home = CurrentProcess.environment("XDG_CONFIG_HOME"), home.hasPrefix("/") {
      return home + "/locd/session.conf"
    }
    return (CurrentProcess.environment("HOME") ?? "") + "/.config/locd/session.conf"
  }

  /// Reads the configuration file: the defaults where it is missing, and where a key is
  /// wrong (each problem logged, `FILE:LINE: ...`); false when it could not be used at all.
  @discardableResult
  private func readConfig() -> Bool {
    let path = SessionService.configPath(options.configPath)
    var next = SessionConfig()
    if FileIO.exists(path: path) {
      let text: [UInt8]
      do { text = try FileIO.read(path: path, limit: 64 << 10) } catch {
        logger.log(.error, "\(path): \(error); using the defaults")
        config = next
        return false
      }
      for problem in next.apply(fileText: String(decoding: text, as: UTF8.self), fileName: path) {
        logger.log(.warning, "\(problem), ignoring")
      }
    }
    if case .failure(let problem) = next.rules {
      logger.log(.error, "\(path): \(problem); using dark at sunset, light at sunrise")
      next.dark = SessionConfig().dark
      next.light = SessionConfig().light
    }
    config = next
    return true
  }

  /// Runs until SIGTERM or SIGINT (0), or until the session bus goes away (1).
  public func run() -> Int32 {
    readConfig()
    do {
      try loop.onSignal(Signals.terminate) { [unowned self] in self.loop.exit(code: 0) }
      try loop.onSignal(Signals.interrupt) { [unowned self] in self.loop.exit(code: 0) }
      try loop.onSignal(Signals.hangUp) { [unowned self] in self.reload() }
      try startBus()
      if config.scripts {
        scripts = try ModeScripts(
          loop: loop, directories: ModeScripts.dataDirectories(environment: CurrentProcess.environment),
          log: { [unowned self] in self.logger.log($0, $1) })
      }
    } catch {
      logger.log(.error, "cannot start: \(error)")
      return 1
    }
    let rules = (try? config.rules.get()) ?? .standard
    let handlers = LocdLink.Handlers(
      log: { [unowned self] in self.logger.log($0, $1) },
      schedule: { [unowned self] s, reason in self.scheduled(s, reason) },
      settled: { [unowned self] in self.carryOut(self.face.handle(.settled)) },
      refused: { [unowned self] why in
        self.logger.log(.warning, "locd did not set the mode: \(why)")
        self.carryOut(self.face.handle(.refused))
      })
    let link = LocdLink(path: options.socketPath, rules: rules, loop: loop, handlers: handlers)
    self.link = link
    link.start()
    Systemd.notify("READY=1")
    return loop.run()
  }

  /// SIGHUP: the configuration is read again; new rules go to locd. The faces and scripts
  /// chosen at start stay (restart the service to change them).
  private func reload() {
    Systemd.notify("RELOADING=1")
    readConfig()
    if let rules = try? config.rules.get() { link?.follow(rules) }
    logger.log(.notice, "configuration read again: \(config.dark), \(config.light)")
    Systemd.notify("READY=1")
  }

  private func startBus() throws(Errno) {
    let bus = try BusConnection.session(on: loop)
    self.bus = bus
    try bus.whenDisconnected { [unowned self] in
      self.logger.log(.error, "the session bus went away")
      self.loop.exit(code: 1)
    }
    if config.darkman {
      let object = DarkmanObject(
        mode: { [unowned self] in self.face.darkmanMode },
        written: { [unowned self] m in self.written(m) })
      try object.register(on: bus)
      darkman = object
      try own(DarkmanObject.name, on: bus, what: "darkman's interface")
    }
    let desktop = CurrentProcess.environment("XDG_CURRENT_DESKTOP")
    if config.servesPortal(currentDesktop: desktop) {
      let object = PortalSettingsObject(colorScheme: { [unowned self] in self.face.colorScheme })
      try object.register(on: bus)
      portal = object
      try own(PortalSettingsObject.name, on: bus, what: "the portal's Settings backend")
    } else {
      logger.log(
        .info,
        "no portal Settings backend on desktop '\(desktop ?? "")' (Portal=\(config.portal.rawValue); the desktop's own answers)"
      )
    }
  }

  /// Asks for `name` without queueing; a name someone else has (darkman itself runs) is left
  /// to them, with a warning.
  private func own(_ name: String, on bus: BusConnection, what: String) throws(Errno) {
    nameRequests.append(
      try bus.requestName(name) { [unowned self] reply in
        if let problem = reply?.errorText {
          self.logger.log(.warning, "\(name) refused (\(problem)): not serving \(what)")
        } else if let code = try? reply?.readUInt32(), code == 1 || code == 4 {
          self.logger.log(.info, "serving \(what) as \(name)")
        } else {
          self.logger.log(.warning, "\(name) is taken by another program: not serving \(what)")
        }
      })
  }

  /// A schedule from locd.
  private func scheduled(_ s: LightDarkView, _ reason: LightDarkReason?) {
    let mode = s.mode?.rawValue ?? "unknown"
    let next = s.transitions.first.map { ", \($0.mode.rawValue) at \($0.at.iso8601())" } ?? ""
    logger.log(.info, "schedule: \(mode)\(next)" + (reason.map { " [\($0.rawValue)]" } ?? ""))
    _ = face.handle(.schedule(s))
  }

  /// darkman's Mode was written: refused at once when locd cannot be asked.
  private func written(_ m: LightDarkMode) -> String? {
    guard link?.state == .following else { return "locd is not reachable; the mode follows locd's schedule" }
    carryOut(face.handle(.set(m)))
    return nil
  }

  private func carryOut(_ outputs: [LightDarkFace.Output]) {
    for output in outputs {
      do {
        switch output {
        case .modeChanged(let m):
          if let bus, let darkman { try darkman.announce(m, on: bus) }
        case .colorSchemeChanged(let v):
          if let bus, let portal { try portal.announce(v, on: bus) }
          logger.log(.info, "color-scheme \(v)")
        case .runScripts(let m):
          scripts?.run(m)
        case .ask(let change):
          if link?.setMode(change) != true { carryOut(face.handle(.refused)) }
        }
      } catch {
        logger.log(.warning, "cannot signal on the session bus: \(error)")
      }
    }
  }
}
