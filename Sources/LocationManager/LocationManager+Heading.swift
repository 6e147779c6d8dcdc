import LocClient
import LocCore
import LocProtocol

/// A compass heading as an app is given it, as Core Location's CLHeading has it: degrees
/// clockwise from magnetic north, from true north when known (never: locd ships no
/// declination model), when it was measured and the compass source it came from.
public struct Heading: Sendable, Hashable {
  /// Degrees clockwise from magnetic north, to a tenth (0 north, 90 east).
  public var magneticHeading: Double
  /// Degrees clockwise from true north; nil (Core Location's −1) without a declination model.
  public var trueHeading: Double?
  /// When the compass reported it, UTC.
  public var timestamp: Instant
  /// The source's URI (`compass:`).
  public var source: String

  /// The heading in `view`.
  init(_ view: HeadingEvent) {
    magneticHeading = view.magneticHeading
    trueHeading = view.trueHeading
    timestamp = view.time
    source = view.source
  }
}

// MARK: Heading updates

extension LocationManager {
  /// Starts heading updates (Core Location's `startUpdatingHeading()` with its
  /// `headingFilter`): a `heading` event as soon as the compass has a reading, then each
  /// time it turned at least `filter` degrees (0: every reading; 0 to 180; default 1),
  /// while the app is authorized and in use. Starting again changes the filter. locd
  /// claims the compass only while some app wants heading (docs/PROTOCOL.md, "Heading").
  public func startUpdatingHeading(filter: Double = WireRequest.defaultHeadingFilter)
    async throws(ControlClient.Failure)
  {
    _ = try await link.call(.startHeading(filter: filter), timeout: timeout)
  }

  /// Stops heading updates; throws `not-found` when they were not started.
  public func stopUpdatingHeading() async throws(ControlClient.Failure) {
    _ = try await link.call(.stopHeading, timeout: timeout)
  }
}
