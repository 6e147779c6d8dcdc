/// The RSSI smoothing of ranging: the median of the RSSI samples heard within the last
/// `window`, at most the `capacity` most recent ones (for an even count, the mean of the two
/// middle values).
///
/// A median rather than a mean: single readings 10...20 dB off (a body passing, a
/// reflection) are common in BLE and move a median not at all; a 5 s window with the
/// default of 20 samples follows a person walking at the pace a ranging list changes.
/// Memory is `capacity` samples, whatever the advertising rate.
public struct RSSIMedianFilter: Hashable, Sendable {
  /// How long a sample counts.
  public let window: Duration
  /// How many samples are kept.
  public let capacity: Int

  private var times: [Int64] = []
  private var values: [Double] = []
  /// Where the next sample goes once the ring is full.
  private var next = 0

  /// An empty filter.
  public init(window: Duration = .seconds(5), capacity: Int = 20) {
    precondition(capacity >= 1 && capacity <= 1024, "capacity out of range")
    self.window = window
    self.capacity = capacity
  }

  /// Adds a sample heard at `time`.
  public mutating func add(_ rssi: DecibelMilliwatts, at time: Instant) {
    if times.count < capacity {
      times.append(time.microsecondsSinceEpoch)
      values.append(rssi.value)
    } else {
      times[next] = time.microsecondsSinceEpoch
      values[next] = rssi.value
      next = (next + 1) % capacity
    }
  }

  /// The median of the samples heard less than `window` before `now`; `nil` when none was.
  public func median(at now: Instant) -> DecibelMilliwatts? {
    let oldest = now.adding(Duration.zero - window).microsecondsSinceEpoch
    return withUnsafeTemporaryAllocation(of: Double.self, capacity: times.count) {
      buffer -> DecibelMilliwatts? in
      var n = 0
      for i in 0..<times.count where times[i] > oldest {
        // Insertion sort: at most `capacity` values.
        var j = n
        while j > 0 && buffer[j - 1] > values[i] {
          buffer[j] = buffer[j - 1]
          j -= 1
        }
        buffer[j] = values[i]
        n += 1
      }
      guard n > 0 else { return nil }
      let middle = n % 2 == 1 ? buffer[n / 2] : (buffer[n / 2 - 1] + buffer[n / 2]) / 2
      return DecibelMilliwatts(middle)
    }
  }

  /// Moves samples from after `now` to `now` (the clock was set back): they count for a
  /// whole window from now instead of for an hour or never.
  public mutating func clamp(to now: Instant) {
    for i in 0..<times.count where times[i] > now.microsecondsSinceEpoch {
      times[i] = now.microsecondsSinceEpoch
    }
  }
}
