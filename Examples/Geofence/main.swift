// Geofence: a small app on the LocationManager library's region monitoring
// (docs/REGIONS.md, "Apps: the LocationManager library"). It monitors one circular region,
// prints its state, then prints the region's events as they come.
//
//   Geofence ID LAT,LON RADIUS [--socket PATH] [--app ID] [--events N] [--timeout SECONDS]
//
// The app needs always authorization with full accuracy (`locctl apps grant
// org.example.Geofence --always`): it never comes to the foreground, and a when-in-use app
// hears region events only while in use. It stops monitoring the region when it exits.
// Exit status: 0 after N events (default 2), 1 on a failure or timeout, 2 on bad arguments.

import LocationManager

#if canImport(Glibc)
  import Glibc
#endif

/// Writes `text` and a newline to standard error.
func complain(_ text: String) {
  let bytes = Array((text + "\n").utf8)
  _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

/// The value after `--name`, if given.
func option(_ name: String) -> String? {
  let args = CommandLine.arguments
  guard let i = args.firstIndex(of: "--" + name), i + 1 < args.count else { return nil }
  return args[i + 1]
}

let args = CommandLine.arguments
let centre = args.count > 2 ? args[2].split(separator: ",").compactMap { Double($0) } : []
guard args.count > 3, centre.count == 2, let radius = Double(args[3]) else {
  complain("usage: Geofence ID LAT,LON RADIUS [--socket PATH] [--app ID] [--events N] [--timeout SECONDS]")
  exit(2)
}
let region: CircularRegion
do {
  region = try CircularRegion(id: args[1], latitude: centre[0], longitude: centre[1], radius: radius)
} catch {
  complain("Geofence: \(error)")
  exit(2)
}
let socket = option("socket") ?? LocationManager.defaultSocketPath
let app = option("app") ?? "org.example.Geofence"
let wanted = option("events").flatMap { Int($0) } ?? 2
let seconds = option("timeout").flatMap { Int($0) } ?? 600

let watchdog = Task {
  try? await Task.sleep(for: .seconds(seconds))
  if Task.isCancelled { return }
  complain("Geofence: timed out after \(seconds) s")
  exit(1)
}

do {
  let manager = try await LocationManager(app: app, socketPath: socket)
  var events = manager.events.makeAsyncIterator()
  try await manager.startMonitoring(for: region)
  print("\(region.id): \(try await manager.requestState(for: region).rawValue)")
  var got = 0
  while got < wanted {
    switch await events.next() {
    case .region(let r)? where r.id == region.id:
      got += 1
      print("\(r.id): \(r.event.rawValue) at \(r.at.iso8601()), now \(r.state.rawValue)")
    case .error(let failure)?: throw failure
    case nil: throw ControlClient.Failure.protocolError("the connection ended")
    default: continue  // kinds this program does not use
    }
  }
  try await manager.stopMonitoring(for: region)
  manager.close()
  watchdog.cancel()
} catch {
  complain("Geofence: \(error)")
  exit(1)
}
