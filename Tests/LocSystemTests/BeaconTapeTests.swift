import LocCore
import Testing

@testable import LocSystem

/// The tape of a beacon replay on plain times: offsets from the first advertisement, never
/// negative; the place, the rounds and the advertisements played.
@Suite struct BeaconTapeTests {
  static func advertisement(at microseconds: Int64) -> BeaconAdvertisement {
    BeaconAdvertisement(
      time: Instant(microsecondsSinceEpoch: microseconds), address: BluetoothAddress("00:11:22:33:44:55")!,
      addressType: .public, eventType: .advInd,
      payload: BeaconPayload(
        format: .iBeacon, identity: BeaconIdentity(uuid: BeaconUUID(high: 0, low: 0), major: 1, minor: 2),
        companyID: 0x004C, advertisedPower: -59),
      rssi: DecibelMilliwatts(-70))
  }

  @Test func offsetsCountFromTheFirstAdvertisementAndAStepBackIsNone() {
    var tape = BeaconTape()
    tape.load([5_000_000, 7_500_000, 6_000_000, 9_000_000].map(Self.advertisement))
    #expect(tape.offset(0) == 0)
    #expect(tape.offset(1) == 2_500_000)
    #expect(tape.offset(2) == 1_000_000)
    tape.load([5_000_000, 4_000_000].map(Self.advertisement))
    #expect(tape.offset(1) == 0)
  }

  @Test func aRoundTakesEveryAdvertisementInOrderAndRoundsAddUp() {
    var tape = BeaconTape()
    tape.load([1_000, 2_000, 4_000].map(Self.advertisement))
    tape.beginRound()
    #expect(tape.rounds == 1 && tape.nextOffset == 0)
    #expect(tape.take().time.microsecondsSinceEpoch == 1_000)
    #expect(tape.nextOffset == 1_000)
    _ = tape.take()
    #expect(tape.nextOffset == 3_000 && !tape.roundPlayed)
    _ = tape.take()
    #expect(tape.roundPlayed && tape.nextOffset == nil)
    tape.pause()
    #expect(tape.betweenRounds)
    tape.beginRound()
    #expect(!tape.betweenRounds && tape.rounds == 2 && tape.nextOffset == 0)
    _ = tape.take()
    #expect(tape.played == 4)
  }
}
