/// The static location file in geoclue's format (`/etc/geolocation`, geoclue 2.7's static
/// source): four numbers, one a line, in this order: latitude and longitude in degrees
/// (WGS84), altitude in metres above sea level, and the accuracy radius in metres. `#` starts
/// a comment, on a line of its own or after a number; blank lines are skipped. Each number is
/// a plain decimal (`DecimalText`: what geoclue's strtod reads, without hexadecimal, `inf` or
/// `nan`), and each within what a place can be (`PositionBounds`: an altitude from −11 km to
/// 100 km, an accuracy from 1 cm to half the Earth's circumference). Anything else makes the
/// whole file unusable, with the line that is wrong: a half-read file never moves the position.
public enum StaticLocationFile {
  /// What the file says.
  public struct Contents: Sendable, Hashable {
    /// Where.
    public var coordinate: Coordinate
    /// Altitude above mean sea level.
    public var altitude: Meters
    /// The accuracy radius, taken as locd's 68 % radius (decision 0011): the file's author
    /// states how far off the place may be, and locd has nothing better to go on.
    public var accuracy: Meters
  }

  /// Why a file cannot be used, in words for `locctl status`.
  public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The reason, naming the line.
    public var description: String
    /// The value out of bounds, when that is the reason (`status`'s `outOfBounds` shows it).
    public var outOfBounds: OutOfBounds?
    /// A problem.
    public init(description: String, outOfBounds: OutOfBounds? = nil) {
      self.description = description
      self.outOfBounds = outOfBounds
    }

    /// Problems are the same when they say the same: the words name the line and the value.
    public static func == (a: Problem, b: Problem) -> Bool { a.description == b.description }
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }
  }

  /// The largest file read (a four-line file with comments is far below it).
  public static let sizeLimit = 4096

  /// Reads `text`.
  public static func parse(_ text: String) throws(Problem) -> Contents {
    guard text.utf8.count <= sizeLimit else { throw Problem(description: "larger than \(sizeLimit) bytes") }
    let names = ["latitude", "longitude", "altitude", "accuracy"]
    var values: [Double] = []
    var lines: [Int] = []
    var number = 0
    // Split on every newline Character: "\r\n" is one Character, not a "\n".
    for raw in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
      number += 1
      let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
      let word = line.trimmingSpaces
      if word.isEmpty { continue }
      guard values.count < names.count else {
        throw Problem(description: "line \(number): more than four values")
      }
      let name = names[values.count]
      switch DecimalText.read(word) {
      case .number(let value):
        values.append(value)
        lines.append(number)
      case .hexadecimal:
        throw Problem(
          description: "line \(number): the \(name) \(word.prefix(32)) is hexadecimal, not a decimal number")
      case .outOfRange:
        throw Problem(
          description: "line \(number): the \(name) \(word.prefix(32)) is beyond what a number can hold")
      case .notANumber:
        throw Problem(description: "line \(number): the \(name) is not a number")
      }
    }
    guard values.count == names.count else {
      throw Problem(
        description:
          "the \(names[values.count]) is missing (four lines: latitude, longitude, altitude, accuracy)")
    }
    let coordinate: Coordinate
    switch PositionBounds.coordinate(lat: values[0], lon: values[1]) {
    case .success(let c): coordinate = c
    case .failure(let off): throw Problem(description: "latitude or longitude out of range", outOfBounds: off)
    }
    let altitude = PositionBounds.statedAltitude(values[2])
    if let off = altitude.outOfBounds {
      let range =
        "\(OutOfBounds.number(PositionBounds.minStatedAltitude.value))…\(OutOfBounds.number(PositionBounds.maxStatedAltitude.value)) m"
      throw Problem(
        description: "line \(lines[2]): the altitude \(OutOfBounds.number(values[2])) m is outside \(range)",
        outOfBounds: off)
    }
    let accuracy = PositionBounds.accuracy(values[3], of: .staticFile)
    guard let radius = accuracy.value else {
      let off = accuracy.outOfBounds
      guard values[3] > 0 else {
        throw Problem(description: "the accuracy must be above 0 m", outOfBounds: off)
      }
      let claimed = OutOfBounds.number(values[3])
      let why =
        values[3] < PositionBounds.statedAccuracyFloor.value
        ? "below \(OutOfBounds.number(PositionBounds.statedAccuracyFloor.value)) m (no machine's place is known to less than a centimetre)"
        : "above \(OutOfBounds.number(PositionBounds.maxAccuracy.value)) m (half the Earth's circumference)"
      throw Problem(description: "line \(lines[3]): the accuracy \(claimed) m is \(why)", outOfBounds: off)
    }
    return Contents(coordinate: coordinate, altitude: Meters(values[2]), accuracy: Meters(radius))
  }
}

extension Substring {
  /// Without leading and trailing spaces, tabs and carriage returns.
  fileprivate var trimmingSpaces: Substring {
    let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
    guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else {
      return ""
    }
    return self[first...last]
  }
}
