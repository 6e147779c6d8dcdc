/// A set of days of the week, as in a timer rule's `Mon-Fri` or `Sat,Sun`.
public struct Weekdays: Hashable, Sendable, CustomStringConvertible {
  /// Bit n set: weekday n is in the set (0 = Sunday ... 6 = Saturday, as `CivilDate.weekday`).
  public private(set) var bits: UInt8

  /// Every day.
  public static let all = Weekdays(bits: 0x7F)

  /// A set from its bits (only the low seven count).
  public init(bits: UInt8) { self.bits = bits & 0x7F }

  /// Short English names, Sunday first (the index is `CivilDate.weekday`).
  public static let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

  /// Whether `date` falls on one of these days.
  public func contains(_ date: CivilDate) -> Bool { bits & (1 << UInt8(date.weekday)) != 0 }

  /// Parses `Mon-Fri`, `Sat,Sun`, `Mon,Wed-Fri`, `Fri..Mon` (ranges may wrap past Sunday);
  /// names are the three-letter English ones or the full names, in any case. `nil` otherwise.
  public init?(parsing text: some StringProtocol) {
    var bits: UInt8 = 0
    for part in text.split(separator: ",", omittingEmptySubsequences: false) {
      // "Fri..Mon" (systemd's range form) reads like "Fri-Mon".
      var item = ""
      var rest = Substring(part)
      while let c = rest.first {
        if rest.hasPrefix("..") {
          item.append("-")
          rest = rest.dropFirst(2)
        } else {
          item.append(c)
          rest = rest.dropFirst()
        }
      }
      let bounds = item.split(separator: "-", omittingEmptySubsequences: false)
      guard bounds.count == 1 || bounds.count == 2 else { return nil }
      guard let first = Weekdays.index(of: bounds[0]), let last = Weekdays.index(of: bounds[bounds.count - 1])
      else { return nil }
      var day = first
      while true {
        bits |= 1 << UInt8(day)
        if day == last { break }
        day = (day + 1) % 7
      }
    }
    guard bits != 0 else { return nil }
    self.bits = bits
  }

  /// The index (0 = Sunday) of a day name, `nil` if it is none.
  static func index(of name: some StringProtocol) -> Int? {
    let lower = name.lowercased()
    let full = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
    if let i = full.firstIndex(of: lower) { return i }
    return names.firstIndex(where: { $0.lowercased() == lower })
  }

  /// The shortest list of days and ranges, Monday first: `Mon-Fri`, `Sat,Sun`, `Mon,Wed-Fri`.
  public var description: String {
    // Monday-first order (ISO 8601), so a working week reads as one range.
    let order = [1, 2, 3, 4, 5, 6, 0]
    var parts: [String] = []
    var i = 0
    while i < order.count {
      guard bits & (1 << UInt8(order[i])) != 0 else {
        i += 1
        continue
      }
      var j = i
      while j + 1 < order.count, bits & (1 << UInt8(order[j + 1])) != 0 { j += 1 }
      let first = Weekdays.names[order[i]]
      let last = Weekdays.names[order[j]]
      if j == i {
        parts.append(first)
      } else if j == i + 1 {
        parts.append(first)
        parts.append(last)
      } else {
        parts.append("\(first)-\(last)")
      }
      i = j + 1
    }
    return parts.joined(separator: ",")
  }
}
