import Foundation
import LocCore
import LocProtocol
import Testing

@testable import LocSystem

/// locd-session's face rules without a bus (decision 0065): what darkman's Mode and the
/// portal's color-scheme say, which signals go out, when the scripts run, what a write of
/// Mode asks of locd; and the pieces of its configuration.
@Suite struct LightDarkFaceTests {
  static func schedule(_ mode: LightDarkMode?) -> LightDarkView {
    LightDarkView(
      LightDarkSchedule(
        mode: mode, scheduled: mode, since: nil, transitions: [], rules: .standard, override: nil, note: nil,
        zone: "UTC"))
  }

  @Test func beforeLocdSaysAnythingModeIsLightAndTheColorSchemeHasNoPreference() {
    let face = LightDarkFace()
    // darkman's Mode has two values; the portal's color-scheme has "no preference" (0).
    #expect(face.darkmanMode == .light && face.colorScheme == 0 && face.mode == nil)
  }

  @Test func theFirstScheduleSignalsAndRunsTheScriptsOnce() {
    var face = LightDarkFace()
    #expect(face.handle(.schedule(Self.schedule(.dark))).isEmpty, "nothing before the batch is settled")
    #expect(face.handle(.settled) == [.modeChanged(.dark), .colorSchemeChanged(1), .runScripts(.dark)])
    #expect(face.handle(.settled).isEmpty)
    // Light at start: darkman's Mode was already light, so no ModeChanged; the portal's
    // color-scheme goes from 0 to 2, and the light scripts run (the desktop is set at login).
    var light = LightDarkFace()
    _ = light.handle(.schedule(Self.schedule(.light)))
    #expect(light.handle(.settled) == [.colorSchemeChanged(2), .runScripts(.light)])
  }

  /// A process stopped (or a machine asleep) across sunset and sunrise reads both events at
  /// once: the desktop was light and is light again, so nothing is signalled and no script
  /// runs; across sunset alone, dark once.
  @Test func schedulesReadTogetherAreSettledOnce() {
    var face = LightDarkFace()
    _ = face.handle(.schedule(Self.schedule(.light)))
    _ = face.handle(.settled)
    _ = face.handle(.schedule(Self.schedule(.dark)))
    _ = face.handle(.schedule(Self.schedule(.light)))
    #expect(face.handle(.settled).isEmpty)
    _ = face.handle(.schedule(Self.schedule(.dark)))
    _ = face.handle(.schedule(Self.schedule(.dark)))
    #expect(face.handle(.settled) == [.modeChanged(.dark), .colorSchemeChanged(1), .runScripts(.dark)])
  }

  @Test func aWriteOfModeShowsAtOnceAndIsAskedOfLocd() {
    var face = LightDarkFace()
    _ = face.handle(.schedule(Self.schedule(.light)))
    _ = face.handle(.settled)
    #expect(
      face.handle(.set(.dark)) == [
        .ask(.dark), .modeChanged(.dark), .colorSchemeChanged(1), .runScripts(.dark),
      ])
    #expect(face.darkmanMode == .dark)
    // locd's answer (the schedule with the override) changes nothing more.
    _ = face.handle(.schedule(Self.schedule(.dark)))
    #expect(face.handle(.settled).isEmpty)
    // Refused: back to what locd said.
    #expect(face.handle(.set(.light)).first == .ask(.light))
    #expect(face.handle(.refused) == [.modeChanged(.dark), .colorSchemeChanged(1), .runScripts(.dark)])
  }

  @Test func noScheduleAnyMoreIsNoPreferenceAndNoScript() {
    var face = LightDarkFace()
    _ = face.handle(.schedule(Self.schedule(.dark)))
    _ = face.handle(.settled)
    _ = face.handle(.schedule(Self.schedule(nil)))
    // Mode stays what darkman can say (light); the portal says no preference.
    #expect(face.handle(.settled) == [.modeChanged(.light), .colorSchemeChanged(0)])
  }

  /// The interface XML of org.freedesktop.impl.portal.Settings (xdg-desktop-portal 1.16):
  /// "If @namespaces is an empty array or contains an empty string it matches all. Globbing
  /// is supported but only for trailing sections, e.g. "org.example.*"."
  @Test func readAllMatchesNamespacesAsTheInterfaceSays() {
    let ns = "org.freedesktop.appearance"
    #expect(PortalSettingsObject.matches(ns, []))
    #expect(PortalSettingsObject.matches(ns, ["org.gnome.desktop.interface", ""]))
    #expect(PortalSettingsObject.matches(ns, ["org.freedesktop.appearance"]))
    #expect(PortalSettingsObject.matches(ns, ["org.freedesktop.*"]))
    #expect(PortalSettingsObject.matches(ns, ["org.*"]))
    #expect(!PortalSettingsObject.matches(ns, ["org.gnome.*"]))
    #expect(!PortalSettingsObject.matches(ns, ["org.freedesktop.appearance.*"]))
    #expect(!PortalSettingsObject.matches(ns, ["org.freedesktop"]))
  }

  /// The XDG base directory specification: $XDG_DATA_HOME (default $HOME/.local/share) then
  /// $XDG_DATA_DIRS (default /usr/local/share:/usr/share), relative entries ignored.
  @Test func scriptsAreLookedForInTheXDGDataDirectories() {
    func dirs(_ env: [String: String]) -> [String] { ModeScripts.dataDirectories(environment: { env[$0] }) }
    #expect(dirs(["HOME": "/home/a"]) == ["/home/a/.local/share", "/usr/local/share", "/usr/share"])
    #expect(
      dirs(["HOME": "/home/a", "XDG_DATA_HOME": "/d", "XDG_DATA_DIRS": "/x:rel:/y:/d"]) == ["/d", "/x", "/y"])
    #expect(dirs(["XDG_DATA_HOME": "relative", "XDG_DATA_DIRS": ""]) == ["/usr/local/share", "/usr/share"])
  }

  @Test func theConfigurationReadsRulesAndFaces() throws {
    var config = SessionConfig()
    #expect(try config.rules.get() == .standard)
    let problems = config.apply(
      fileText:
        "[LightDark]\nDark=civil-dusk+10m\nLight=elevation:3:morning\n[Faces]\nPortal=no\nScripts=off\n",
      fileName: "session.conf")
    #expect(problems.isEmpty, "\(problems)")
    #expect(try config.rules.get() == LightDarkRules(dark: "civil-dusk+10m", light: "elevation:3:morning"))
    #expect(config.portal == .no && !config.scripts && config.darkman)
    var bad = SessionConfig()
    let refused = bad.apply(
      fileText: "[LightDark]\nDark=20:00\nLight=sunrise Mon\n[Faces]\nPortal=maybe\n", fileName: "f")
    #expect(refused.map(\.line) == [2, 3, 5], "\(refused)")
    #expect(bad == SessionConfig(), "a refused value keeps the default")
    var same = SessionConfig()
    _ = same.apply(fileText: "[LightDark]\nDark=sunrise\n", fileName: "f")
    #expect(throws: LightDarkRules.Problem.self) { try same.rules.get() }
  }

  /// Portal=auto serves the backend exactly in the desktops the shipped .portal file names in
  /// UseIn= (the two lists are one decision), compared without case as xdg-desktop-portal does.
  @Test func portalAutoFollowsThePortalFilesDesktops() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let text = try String(contentsOf: root.appendingPathComponent("dbus/locd.portal"), encoding: .utf8)
    let useIn = try #require(text.split(separator: "\n").first { $0.hasPrefix("UseIn=") })
    #expect(
      useIn.dropFirst("UseIn=".count).split(separator: ";").map(String.init) == SessionConfig.portalDesktops)
    let config = SessionConfig()
    #expect(
      config.servesPortal(currentDesktop: "sway") && config.servesPortal(currentDesktop: "labwc:wlroots"))
    #expect(config.servesPortal(currentDesktop: "HYPRLAND"))
    #expect(!config.servesPortal(currentDesktop: "GNOME") && !config.servesPortal(currentDesktop: "KDE"))
    #expect(!config.servesPortal(currentDesktop: nil))
    var yes = SessionConfig()
    yes.portal = .yes
    #expect(yes.servesPortal(currentDesktop: "GNOME"))
  }
}
