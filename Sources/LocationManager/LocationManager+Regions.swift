import LocClient
import LocCore
import LocProtocol

// Region monitoring and visits, as CLLocationManager has them (docs/REGIONS.md, "Apps and
// the LocationManager library"): the calls send protocol 1.3's `register-region`,
// `unregister-region`, `region-state`, `monitor-visits` and `set-launch-unit`; the events
// come through `events` as `.region(RegionNotice)` and `.visit(Visit)`.

extension LocationManager {
  /// Starts monitoring `region` (CLCircularRegion's id, centre, radius, `notifyOnEntry`,
  /// `notifyOnExit`, and Android's dwell): `.region` events from now on, for this session
  /// and, with always authorization, while the app is away (queued, its launch unit
  /// started). The region is kept with the app's decisions and survives restarts of locd
  /// and of the app; its state is `unknown` until a fix decides it. Values out of range
  /// never get here: making the `CircularRegion` throws. Throws
  /// `precise-location-required` (reduced accuracy), `already-exists` (the app has a region
  /// with this id: stop monitoring it first), `too-many-regions` (`MaxRegionsPerApp=`,
  /// `MaxRegions=`).
  public func startMonitoring(for region: CircularRegion) async throws(ControlClient.Failure) {
    _ = try await link.call(.registerRegion(region), timeout: timeout)
  }

  /// Stops monitoring `region` (or any region of the app with its id) and forgets it.
  /// Throws `not-found` when the app has no region with that id.
  public func stopMonitoring(for region: CircularRegion) async throws(ControlClient.Failure) {
    _ = try await link.call(.unregisterRegion(region.id), timeout: timeout)
  }

  /// The state of `region` (of the app's region with its id) now, answered at once from
  /// what the last fixes decided: `inside`, `outside`, or `unknown` (no fix has decided it
  /// yet). Throws `not-found` when the app has no region with that id.
  public func requestState(for region: CircularRegion) async throws(ControlClient.Failure) -> RegionState {
    let answer = try await link.call(.regionState(region.id), timeout: timeout)
    guard let view = answer.regions.first(where: { $0.id == region.id.value }) else {
      throw .protocolError("locd answered region-state without the region asked for")
    }
    guard let state = view.state.known else {
      throw .protocolError("locd answered a region state this library does not know: \(view.state.word)")
    }
    return state
  }

  /// Every region the app monitors, with its state, registered in this session or an
  /// earlier one. Asking also makes this session listen for their events (`subscribe` to
  /// `region`): an app started again (by its launch unit, say) asks, and then gets the
  /// events that waited for it.
  public func monitoredRegions() async throws(ControlClient.Failure) -> [MonitoredRegion] {
    _ = try await link.call(.subscribe([.region]), timeout: timeout)
    let answer = try await link.call(.regionState(), timeout: timeout)
    var regions: [MonitoredRegion] = []
    for view in answer.regions {
      guard let region = MonitoredRegion(view) else {
        throw .protocolError("locd answered a region this library cannot read: \"\(view.id.prefix(64))\"")
      }
      regions.append(region)
    }
    return regions
  }

  /// Starts visit monitoring (CLLocationManager's `startMonitoringVisits()`): a `.visit`
  /// event when the device has stayed at a place for 5 min (an arrival: `departure` nil)
  /// and when it leaves (the same visit with its `departure`). locd keeps only the current
  /// visit, in memory. Throws `precise-location-required` (reduced accuracy).
  public func startMonitoringVisits() async throws(ControlClient.Failure) {
    _ = try await link.call(.monitorVisits(true), timeout: timeout)
  }

  /// Stops visit monitoring.
  public func stopMonitoringVisits() async throws(ControlClient.Failure) {
    _ = try await link.call(.monitorVisits(false), timeout: timeout)
  }

  /// The systemd service locd starts when a region event waits for the app and none of its
  /// sessions is connected (iOS relaunching an app for a region event); nil: none. Only for
  /// an app the kernel vouches for (a Flatpak app, a process in its systemd app unit; else
  /// `not-authorized`), and only its own service (`app-ID.service`, `app-LAUNCHER-ID.service`
  /// with its unit's launcher); another throws `invalid-params`.
  public func setLaunchUnit(_ unit: String?) async throws(ControlClient.Failure) {
    _ = try await link.call(.setLaunchUnit(unit), timeout: timeout)
  }
}

/// A region the app monitors, as `monitoredRegions()` lists it: the region and its state.
public struct MonitoredRegion: Sendable, Hashable {
  /// The region as registered.
  public var region: CircularRegion
  /// `unknown`, `inside` or `outside`, now.
  public var state: RegionState

  /// The region in `view`; nil when it does not make a valid region or its state is not
  /// one this library knows.
  init?(_ view: RegionView) {
    guard let state = view.state.known else { return nil }
    do throws(RegionError) {
      region = try CircularRegion(
        id: view.id, latitude: view.centre.latitude.value, longitude: view.centre.longitude.value,
        radius: view.radius.value, notifyOnEntry: view.notify.contains("entry"),
        notifyOnExit: view.notify.contains("exit"), dwell: view.dwell)
    } catch {
      return nil
    }
    self.state = state
  }
}

extension LocationManagerEvent {
  /// The library's case for a `region` event emitted at `time`; nil when its event or state
  /// is a word this library does not know (it then comes as `.other`).
  static func region(_ view: RegionEventView, at time: Instant) -> LocationManagerEvent? {
    guard let event = view.event.known, let state = view.state.known, let id = try? RegionID(view.id) else {
      return nil
    }
    return .region(RegionNotice(id: id, event: event, state: state, at: time, since: view.since))
  }

  /// The library's case for a `visit` event; nil when its kind is a word this library does
  /// not know, or a departure without its time.
  static func visit(_ view: VisitEventView) -> LocationManagerEvent? {
    switch view.event.known {
    case .arrival?:
      return .visit(Visit(coordinate: view.coordinate, accuracy: view.accuracy, arrival: view.arrival))
    case .departure?:
      guard let departure = view.departure else { return nil }
      return .visit(
        Visit(
          coordinate: view.coordinate, accuracy: view.accuracy, arrival: view.arrival, departure: departure))
    case nil:
      return nil
    }
  }
}
