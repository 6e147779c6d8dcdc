// WhereAmI: a small app built on the LocationManager library (docs/APPS.md). It says hello
// to locd as an app, comes to the foreground, asks for authorization and waits for the
// decision, then prints one location and, with --updates N, the next N updates.
//
//   WhereAmI [--socket PATH] [--app ID] [--always] [--purpose TEXT] [--updates N]
//            [--distance-filter METRES] [--background-updates] [--wait SECONDS]
//            [--timeout SECONDS]
//
// Exit status: 0 with a location, 1 on a failure or timeout, 2 when not authorized.

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

/// One line for a location.
func describe(_ l: Location) -> String {
  let accuracy = l.horizontalAccuracy.map { " ±\($0.value) m" } ?? ""
  return "\(l.coordinate.latitude.value) \(l.coordinate.longitude.value)\(accuracy) (\(l.tier.rawValue))"
}

let socket = option("socket") ?? LocationManager.defaultSocketPath
let app = option("app") ?? "org.example.WhereAmI"
let purpose = option("purpose") ?? "to show where this machine is"
let always = CommandLine.arguments.contains("--always")
let updates = option("updates").flatMap { Int($0) } ?? 0
let seconds = option("timeout").flatMap { Int($0) } ?? 30
// How long locd may wait for a fresh fix before it answers with the best it has.
let wait = option("wait").flatMap { Int($0) } ?? 5

// A watchdog: nothing here may take longer than --timeout.
let watchdog = Task {
  try? await Task.sleep(for: .seconds(seconds))
  if Task.isCancelled { return }
  complain("WhereAmI: timed out after \(seconds) s")
  exit(1)
}

do {
  let manager = try await LocationManager(app: app, socketPath: socket)
  var events = manager.events.makeAsyncIterator()
  try await manager.setActivity(.foreground)

  // Ask, unless decided already, and wait for the answer.
  var status = manager.authorization
  if status.status == .known(.notDetermined) {
    status =
      always
      ? try await manager.requestAlwaysAuthorization(purpose: purpose)
      : try await manager.requestWhenInUseAuthorization(purpose: purpose)
  }
  while status.status == .known(.notDetermined) {
    if status.prompt == .known(.noAgent) || status.prompt == .known(.noAnswer) {
      complain("WhereAmI: nobody answered (\(status.prompt.word)); is 'locctl agent' running?")
      exit(1)
    }
    switch await events.next() {
    case .authorization(let now)?: status = now
    case .error(let failure)?: throw failure
    case nil: throw ControlClient.Failure.protocolError("the connection ended")
    default: continue
    }
  }
  var words = "authorization: \(status.status.word), \(status.accuracy.word) accuracy"
  if status.provisional { words += ", provisional" }
  if status.once { words += ", once" }
  print(words + " (\(status.verified.word))")
  guard manager.authorizationStatus == .whenInUse || manager.authorizationStatus == .always else {
    exit(2)
  }

  // One location now.
  guard let here = try await manager.requestLocation(timeout: .seconds(wait)) else {
    complain("WhereAmI: locd has no position; see 'locctl status'")
    exit(1)
  }
  print("location: " + describe(here))

  // Then updates, if asked for.
  if updates > 0 {
    manager.distanceFilter = option("distance-filter").flatMap { Double($0) }.map { Meters($0) }
    manager.allowsBackgroundLocationUpdates = CommandLine.arguments.contains("--background-updates")
    try await manager.startUpdatingLocation()
    var got = 0
    while got < updates {
      switch await events.next() {
      case .location(let l)?:
        got += 1
        print("update \(got): " + describe(l))
      case .authorization(let now)?:
        print("authorization: \(now.status.word), \(now.accuracy.word) accuracy")
      case .error(let failure)?: throw failure
      case nil: throw ControlClient.Failure.protocolError("the connection ended")
      default: continue  // kinds this program does not use (regions, visits, beacons)
      }
    }
    try await manager.stopUpdatingLocation()
  }
  manager.close()
  watchdog.cancel()
} catch {
  complain("WhereAmI: \(error)")
  exit(1)
}
