import LocCore
import LocProtocol

extension StatusCommand {
  /// `Network:`: on or off and the service; when it last asked, how often, and why the last
  /// lookup gave nothing. Never the networks.
  static func network(_ n: NetworkStatusView, zone: ScreenZone, _ row: (String, String) -> Void) {
    guard n.enabled else {
      row("Network:", "off (nothing is sent; [Network] Enable=yes turns it on)")
      return
    }
    var text = "on, \(Style.visible(n.service))"
    if n.ipLookup { text += ", IP lookups on" }
    row("Network:", text)
    var asked = n.lastAsked.map { "last asked \(zone.dateTime($0))" } ?? "not asked yet"
    asked +=
      "; \(n.count("requests")) sent, \(n.count("answers")) answered, \(n.count("cacheHits")) from memory"
    let kinds = Set(GeolocateFailure.allCases.map(\.rawValue))
    let failed = n.counters.filter { kinds.contains($0.name) && $0.value > 0 }
    if !failed.isEmpty { asked += "; " + failed.map { "\($0.value) \($0.name)" }.joined(separator: ", ") }
    row("", asked)
    if let problem = n.lastProblem { row("", "last: \(Style.visible(problem))") }
    if let problem = n.scanProblem { row("", "Wi-Fi: \(Style.visible(problem))") }
    if n.following {
      row(
        "",
        "following the Wi-Fi scene: \(n.count("published")) published, \(n.count("moves")) moved, "
          + "\(n.count("scans")) scans of locd's own")
    }
    let unread = n.count("unreadAccessPoints")
    if unread > 0 { row("", "\(unread) access points not read (at most 16384 a scan)") }
    if let retry = n.retryAt { row("", "next lookup not before \(zone.dateTime(retry))") }
  }
}
