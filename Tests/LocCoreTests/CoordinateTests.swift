import LocCore
import Testing

@Suite struct CoordinateTests {
  @Test func rejectsOutOfRange() {
    #expect(Coordinate(lat: 90.0001, lon: 0) == nil)
    #expect(Coordinate(lat: 0, lon: -180.5) == nil)
    #expect(Coordinate(lat: .nan, lon: 0) == nil)
    #expect(Coordinate(lat: -90, lon: 180) != nil)
  }

  @Test func distanceOfOneDegreeOfLatitude() {
    let a = Coordinate(lat: 10, lon: 20)!
    let b = Coordinate(lat: 11, lon: 20)!
    // One degree of arc on the mean sphere: 2 * pi * R / 360.
    #expect(abs(a.distance(to: b).value - 111_195.08) < 0.5)
  }

  @Test func destinationInvertsDistance() {
    let start = Coordinate(lat: 38.88, lon: -6.97)!  // Badajoz
    for bearing in stride(from: 0.0, to: 360.0, by: 45.0) {
      let end = start.destination(distance: 5000, bearing: Degrees(bearing))
      #expect(abs(start.distance(to: end).value - 5000) < 0.01)
    }
    let across = Coordinate(lat: 0, lon: 179.99)!.destination(distance: 5000, bearing: 90)
    #expect(across.longitude.value < -179)
  }
}
