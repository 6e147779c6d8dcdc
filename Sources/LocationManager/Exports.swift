@_exported import class LocClient.ControlClient
// The types the library's API speaks in, made visible to every program that imports
// LocationManager, so an app needs no other import to name them. Only these: the rest of
// LocCore, LocProtocol and LocClient stays an implementation detail of locd.
@_exported import enum LocCore.AccuracyAuthorization
@_exported import enum LocCore.AppActivity
@_exported import struct LocCore.AppIdentity
@_exported import enum LocCore.AuthorizationStatus
@_exported import struct LocCore.CircularRegion
@_exported import struct LocCore.Coordinate
@_exported import struct LocCore.Degrees
@_exported import struct LocCore.Instant
@_exported import enum LocCore.JSON
@_exported import struct LocCore.Meters
@_exported import enum LocCore.PositionTier
@_exported import enum LocCore.PromptState
@_exported import enum LocCore.RegionError
@_exported import struct LocCore.RegionID
@_exported import struct LocCore.RegionNotice
@_exported import enum LocCore.RegionState
@_exported import struct LocCore.Visit
@_exported import struct LocProtocol.AppStatusView
@_exported import struct LocProtocol.ErrorReply
@_exported import struct LocProtocol.Greeting
@_exported import enum LocProtocol.OpenEnum
