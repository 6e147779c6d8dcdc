/// The static location file in geoclue's format (`/etc/geolocation`, geoclue 2.7's static
/// source): four numbers, one a line, in this order: latitude and longitude in degrees
/// (WGS84), altitude in metres above sea level, and the accuracy radius in metres. `#` starts
/// a comment, on a line of its own or after a number; blank lines are skipped. Anything else
/// makes the whole file unusable, with the line that is wrong: a half-read file never
/// moves the position.
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
    /// A problem.
    public init(description: String) { self.description = description }
  }

  /// The largest file read (a four-line file with comments is far below it).
  public static let sizeLimit = 4096

  /// Reads `text`.
  public static func parse(_ text: String) throws(Problem) -> Contents {
    guard text.utf8.count <= sizeLimit else { throw Problem(description: "larger than \(sizeLimit) bytes") }
    let names = ["latitude", "longitude", "altitude", "accuracy"]
    var values: [Double] = []
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
      guard let value = Double(word), value.isFinite else {
        throw Problem(description: "line \(number): the \(names[values.count]) is not a number")
      }
      values.append(value)
    }
    guard values.count == names.count else {
      throw Problem(
        description:
          "the \(names[values.count]) is missing (four lines: latitude, longitude, altitude, accuracy)")
    }
    guard let coordinate = Coordinate(lat: values[0], lon: values[1]) else {
      throw Problem(description: "latitude or longitude out of range")
    }
    guard values[3] > 0 else { throw Problem(description: "the accuracy must be above 0 m") }
    return Contents(coordinate: coordinate, altitude: Meters(values[2]), accuracy: Meters(values[3]))
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
