/// A focused state machine the engine is composed of: a value type that owns the state of
/// one concern and changes it only through its own typed inputs, answering with typed
/// outputs (transitions, answers, instants to arm) that the engine turns into `Effect`s.
///
/// `Engine` keeps no state of its own besides its configuration and one stored property
/// per machine; a new concern (apps, region monitors, visits, beacons) arrives as a new
/// conforming type, never as fields on `Engine` (docs/decisions/0012-engine-machines.md).
/// A test reflects over `Engine` to keep that true.
public protocol EngineMachine: Sendable {}
